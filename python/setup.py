"""Everything is in pyproject.toml; this only tags a wheel that carries the engine.

scripts/wheel copies the release `peggle` executables to peggle_gym/bin before building: `peggle`
(for any x86-64 CPU) and, built on an AVX2 machine, `peggle-avx2`, each with its native library
(`libpeggle_env.so`, `libpeggle_env-avx2.so`). Such a wheel holds native code, so it is not pure:
its files go to platlib and its tag is ``py3-none-<platform>`` (any Python 3, no Python ABI: the
engine is a separate process, or a plain C library loaded with ctypes, never an extension module).
Without the executable (a source install) the wheel stays ``py3-none-any``.
"""
import pathlib

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel

ENGINE = pathlib.Path(__file__).resolve().parent / "peggle_gym" / "bin" / "peggle"


class EngineDistribution(Distribution):
    """Native code inside: installed to platlib, and the wheel is not pure (Root-Is-Purelib: false)."""

    def has_ext_modules(self):
        return ENGINE.is_file()


class EngineWheel(bdist_wheel):
    """The tag: any Python 3 and no Python ABI (the engine runs as its own process or as a C
    library through ctypes), this platform."""

    def get_tag(self):
        python, abi, platform = super().get_tag()
        return ("py3", "none", platform) if ENGINE.is_file() else (python, abi, platform)


setup(distclass=EngineDistribution, cmdclass={"bdist_wheel": EngineWheel})
