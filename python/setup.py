"""Everything is in pyproject.toml; this adds the one C extension and tags a wheel that carries
native code.

`peggle_gym._hot` (peggle_gym/_hot.c) is a single native environment's step in C, built against
CPython's limited API 3.10, so one build serves every CPython from 3.10 (abi3). It is optional:
where it cannot be built (no C compiler or Python headers) the package does the same in Python,
slower (docs/native.md). scripts/test builds it in place for the checkout (`build_ext --inplace`).

scripts/wheel also copies the release `peggle` executables to peggle_gym/bin before building:
`peggle` (for any x86-64 CPU) and, built on an AVX2 machine, `peggle-avx2`, each with its native
library (`libpeggle_env.so`, `libpeggle_env-avx2.so`). Such a wheel holds native code, so it is not
pure: its files go to platlib. Its tag is ``cp310-abi3-<platform>`` with the extension built, else
``py3-none-<platform>`` (the engine is a separate process or a plain C library loaded with ctypes).
"""
import pathlib

from setuptools import Distribution, Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel

PACKAGE = pathlib.Path(__file__).resolve().parent / "peggle_gym"
ENGINE = PACKAGE / "bin" / "peggle"
# Linked to libc although it calls nothing there (its few calls are all into Python): auditwheel
# reads the C library an extension needs from its NEEDED entries and refuses one that names none.
HOT = Extension("peggle_gym._hot", ["peggle_gym/_hot.c"], py_limited_api=True, optional=True,
                define_macros=[("Py_LIMITED_API", "0x030A0000")],
                extra_link_args=["-Wl,--no-as-needed", "-lc"])


class EngineDistribution(Distribution):
    """Native code inside (the extension, the engines): installed to platlib, not pure."""

    def has_ext_modules(self):
        return True


class EngineWheel(bdist_wheel):
    """The tag: CPython 3.10+'s stable ABI when the extension was built; else any Python 3 and no
    Python ABI when the engines are inside; else what setuptools says."""

    def get_tag(self):
        python, abi, platform = super().get_tag()
        build_ext = self.get_finalized_command("build_ext")
        if any(pathlib.Path(p).is_file() for p in build_ext.get_outputs()):
            return ("cp310", "abi3", platform)
        return ("py3", "none", platform) if ENGINE.is_file() else (python, abi, platform)


setup(distclass=EngineDistribution, cmdclass={"bdist_wheel": EngineWheel}, ext_modules=[HOT])
