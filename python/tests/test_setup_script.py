"""scripts/lib/setup.sh, the set-up scripts/main and scripts/test share, installs exactly the
Debian packages that are missing, through sudo when not root, and says clearly what to run when
it cannot. Checked with stand-ins for dpkg-query, apt-get, sudo and id on PATH, so the test needs
no network and changes nothing on the machine."""
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT

FAKES = {
    # Installed packages are the lines of $FAKE_STATE/installed.
    "dpkg-query": 'grep -qx "${@: -1}" "$FAKE_STATE/installed" && echo -n "install ok installed"; exit 0',
    # Logs its arguments; `install` adds the packages to the installed list unless told to fail.
    "apt-get": '''echo "apt-get $*" >> "$FAKE_STATE/log"
echo "apt says something"
[ -n "${FAKE_APT_FAIL:-}" ] && { echo "E: Unable to locate package"; exit 100; }
if [ "$1" = install ]; then for a in "$@"; do case "$a" in -*|install) ;; *) echo "$a" >> "$FAKE_STATE/installed";; esac; done; fi
exit 0''',
    "sudo": 'echo "sudo $1" >> "$FAKE_STATE/log"; exec "$@"',
    "id": 'echo "$FAKE_UID"',
    "swift": "exit 0",
    "git": "exit 0",
    # A Python that can (or, with FAKE_NO_VENV, cannot) make a virtual environment.
    "python3": '[ -n "${FAKE_NO_VENV:-}" ] && exit 1; exit 0',
}


PACKAGES = "libopenblas-dev libsqlite3-dev ca-certificates"  # what scripts/main and scripts/test name


def run(tmp_path, *, installed=(), uid=1000, sudo=True, apt_fail=False, venv=True, python=False, dpkg=True):
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    (state / "installed").write_text("".join(p + "\n" for p in installed))
    (state / "log").write_text("")
    for name, body in FAKES.items():
        if (name == "sudo" and not sudo) or (name == "dpkg-query" and not dpkg):
            continue
        path = bin_dir / name
        path.write_text("#!/bin/bash\n" + body + "\n")
        path.chmod(0o755)
    for tool in ("grep", "env", "cat", "dirname", "mktemp", "tail", "rm"):  # the real ones, nothing else from the system
        real = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        (bin_dir / tool).symlink_to(real)
    env = {"PATH": str(bin_dir), "FAKE_STATE": str(state), "FAKE_UID": str(uid), "HOME": str(tmp_path)}
    if apt_fail:
        env["FAKE_APT_FAIL"] = "1"
    if not venv:
        env["FAKE_NO_VENV"] = "1"
    script = f'source "{ROOT}/scripts/lib/setup.sh"; setup_system{" --python" if python else ""} {PACKAGES}; echo done'
    r = subprocess.run(["/bin/bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    return r, (state / "log").read_text().splitlines(), (state / "installed").read_text().split()


def test_nothing_missing_installs_nothing(tmp_path):
    r, log, _ = run(tmp_path, installed=["libopenblas-dev", "libsqlite3-dev", "ca-certificates"])
    assert (r.returncode, r.stdout, r.stderr, log) == (0, "done\n", "", [])


def test_missing_packages_are_installed_through_sudo_when_not_root(tmp_path):
    r, log, installed = run(tmp_path, installed=["libsqlite3-dev", "ca-certificates"])
    assert r.returncode == 0, r.stderr
    assert log == ["sudo env", "apt-get update -qq", "sudo env",
                   "apt-get install -y -qq --no-install-recommends libopenblas-dev"]
    assert r.stderr == "setup: installing the Debian packages libopenblas-dev with sudo apt-get\n"
    assert "libopenblas-dev" in installed


def test_root_installs_without_sudo(tmp_path):
    r, log, _ = run(tmp_path, uid=0)
    assert r.returncode == 0, r.stderr
    assert log == ["apt-get update -qq",
                   "apt-get install -y -qq --no-install-recommends libopenblas-dev libsqlite3-dev ca-certificates"]


def test_the_tests_add_python3_venv_when_python_cannot_make_one(tmp_path):
    r, log, _ = run(tmp_path, uid=0, installed=["libopenblas-dev", "libsqlite3-dev", "ca-certificates"], venv=False,
                    python=True)
    assert r.returncode == 0, r.stderr
    assert log == ["apt-get update -qq", "apt-get install -y -qq --no-install-recommends python3-venv"]


def test_without_root_or_sudo_one_message_names_the_packages_and_the_command(tmp_path):
    r, log, _ = run(tmp_path, sudo=False, installed=["libsqlite3-dev", "ca-certificates"])
    assert r.returncode == 1 and r.stdout == "" and log == []
    assert r.stderr == ("setup: error: Peggle Gym needs the Debian packages libopenblas-dev, and installing them needs "
                        "root (this is not root and there is no sudo). As root, run:  apt-get update && apt-get install "
                        "-y libopenblas-dev\n")


def test_a_failing_apt_get_names_the_packages_and_the_command(tmp_path):
    r, log, _ = run(tmp_path, uid=0, apt_fail=True)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.splitlines()[1:3] == ["apt says something", "E: Unable to locate package"]  # what apt said
    assert r.stderr.splitlines()[-1] == ("setup: error: could not install the Debian packages libopenblas-dev "
                                         "libsqlite3-dev ca-certificates. Install them, as root, with:  apt-get update "
                                         "&& apt-get install -y libopenblas-dev libsqlite3-dev ca-certificates")


def test_without_dpkg_query_apt_get_is_asked_for_every_package(tmp_path):
    r, log, _ = run(tmp_path, uid=0, dpkg=False)
    assert r.returncode == 0, r.stderr
    assert log == ["apt-get update -qq",
                   "apt-get install -y -qq --no-install-recommends libopenblas-dev libsqlite3-dev ca-certificates"]


# scripts/test also needs the browser its studio test drives, that browser's driver, and Python's
# headers to build peggle_gym._hot in place.
@pytest.mark.parametrize("script, packages", [("scripts/main", PACKAGES),
                                              ("scripts/test", PACKAGES + " chromium chromium-driver python3-dev")])
def test_both_commands_set_up_before_building(script, packages):
    text = (ROOT / script).read_text()
    assert "source scripts/lib/setup.sh" in text
    setup = text.index("\nsetup_system") + 1
    # Each command names the Debian packages it needs; the set-up installs the missing ones.
    line = text[setup:text.index("\n", setup)].split("#")[0].split()
    assert line[1:] == (["--python"] if script == "scripts/test" else []) + packages.split()
    assert setup < text.index("swift build")
    if script == "scripts/test":  # the extension is built before any test imports peggle_gym
        assert text.index("\nsetup_python\nsetup_hot\n") < text.index("-m pytest")


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "scripts/test   # build and run every test" in readme
    lines = [l for l in (ROOT / ".ci" / "run").read_text().splitlines() if l and not l.startswith("#")]
    assert lines == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "exec scripts/test"]
