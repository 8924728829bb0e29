# The set-up scripts/main and scripts/test share (sourced, not run): each installs only what is
# missing, so on a machine that has everything it costs a second. Messages go to standard error.
#
#   setup_system [--python] PACKAGE...
#                            The Debian packages the caller names (scripts/main and scripts/test:
#                            libopenblas-dev for the CBLAS module's cblas.h and libopenblas,
#                            libsqlite3-dev for the SQLite GRDB links, ca-certificates because
#                            SwiftPM fetches the dependencies over https; scripts/test also
#                            chromium and chromium-driver for the studio's browser tests), and git if missing
#                            (SwiftPM fetches them with it); with --python also python3-venv when
#                            Python cannot make a virtual environment. Those not installed are
#                            installed with apt-get, through sudo when not root.
#   setup_python             The Python test requirements (python/requirements-test.txt), with pip,
#                            into the active virtual environment or else .venv (Debian's Python
#                            refuses pip installs into the system: PEP 668). Sets PEGGLE_PYTHON.
#   setup_hot                Builds peggle_gym._hot (a single native environment's step in C) in
#                            place in python/peggle_gym, for the checkout's tests (after setup_python;
#                            needs a C compiler, which Swift's toolchain has, and Python's headers:
#                            Debian's python3-dev).

setup_say() { echo "setup: $*" >&2; }

# Whether Debian package $1 is installed.
setup_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

setup_system() {
    if ! command -v swift >/dev/null 2>&1; then
        setup_say "error: swift is not on PATH. Install Swift 6.3 (https://www.swift.org/install/linux/) and run this again."
        exit 1
    fi
    if ! command -v python3 >/dev/null 2>&1 && [ "${1:-}" = --python ]; then
        setup_say "error: python3 is not on PATH. Install Python 3 (Debian: apt-get install python3) and run this again."
        exit 1
    fi
    local python=
    if [ "${1:-}" = --python ]; then python=1; shift; fi
    local wanted=("$@")
    command -v git >/dev/null 2>&1 || wanted+=(git)
    if [ -n "$python" ] && ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
        wanted+=(python3-venv)
    fi
    local missing=() p
    if command -v dpkg-query >/dev/null 2>&1; then
        for p in "${wanted[@]}"; do setup_installed "$p" || missing+=("$p"); done
    elif command -v apt-get >/dev/null 2>&1; then
        missing=("${wanted[@]}")  # apt without dpkg-query to ask: apt-get skips what is there
    else
        setup_say "not a Debian system (no apt-get): make sure these, or your system's equivalents, are installed: ${wanted[*]}"
        return 0
    fi
    [ ${#missing[@]} -eq 0 ] && return 0

    local command="apt-get update && apt-get install -y ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            setup_say "error: Peggle Gym needs the Debian packages ${missing[*]}, and installing them needs root (this is not root and there is no sudo). As root, run:  $command"
            exit 1
        fi
    fi
    setup_say "installing the Debian packages ${missing[*]} with ${sudo[*]:+sudo }apt-get"
    # apt's and dpkg's chatter is kept in a log and shown only if something fails.
    local log
    log="$(mktemp)"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 \
        || ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        rm -f "$log"
        setup_say "error: could not install the Debian packages ${missing[*]}. Install them, as root, with:  $command"
        exit 1
    fi
    rm -f "$log"
    for p in "${missing[@]}"; do
        if command -v dpkg-query >/dev/null 2>&1 && ! setup_installed "$p"; then
            setup_say "error: apt-get did not install $p. Install it, as root, with:  $command"
            exit 1
        fi
    done
}

setup_python() {
    local root requirements venv stamp sum
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    requirements="$root/python/requirements-test.txt"
    if [ -n "${VIRTUAL_ENV:-}" ]; then
        venv="$VIRTUAL_ENV"
    else
        venv="$root/.venv"
        if [ ! -x "$venv/bin/python" ]; then
            setup_say "making a Python virtual environment in .venv"
            python3 -m venv "$venv" >&2 || {
                setup_say "error: python3 -m venv failed (on Debian it needs the package python3-venv: apt-get install -y python3-venv)"
                exit 1
            }
        fi
    fi
    PEGGLE_PYTHON="$venv/bin/python"
    export PEGGLE_PYTHON
    # pip runs again only when the requirements change (and works offline until then).
    stamp="$venv/.peggle-requirements"
    sum="$(cksum < "$requirements")"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
        setup_say "installing the Python test requirements into ${venv/#$root\//} with pip"
        # torch (stable-baselines3's) as its CPU-only build when a folder of pip's find-links holds
        # one for this Python (this image's /opt/wheels does): no test uses a GPU, and the default
        # build adds about 3 GB of NVIDIA libraries to download and unpack (docs/distribution.md, "CI").
        local links folder tag cpu_torch=
        links="${PIP_FIND_LINKS:-} $("$PEGGLE_PYTHON" -m pip config get global.find-links 2>/dev/null || true)"
        tag="$("$PEGGLE_PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
        for folder in $links; do
            [ -d "$folder" ] && cpu_torch="$(ls "$folder"/torch-*+cpu-"$tag"-"$tag"-*linux*_x86_64.whl 2>/dev/null | sort -V | tail -1 || true)"
            [ -n "$cpu_torch" ] && break
        done
        if [ -n "$cpu_torch" ] && [ "$(uname -m)" = x86_64 ]; then
            "$PEGGLE_PYTHON" -m pip install --quiet --disable-pip-version-check "$cpu_torch" >&2 || cpu_torch=
        fi
        "$PEGGLE_PYTHON" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2 || {
            setup_say "error: pip could not install python/requirements-test.txt (is the network up?)"
            exit 1
        }
        echo "$sum" > "$stamp"
    fi
}

setup_hot() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    # setup.py marks the extension optional (a source install without headers still works, in
    # Python), so a failed build is found by importing it.
    (cd "$root/python" && "$PEGGLE_PYTHON" setup.py -q build_ext --inplace >/dev/null 2>&1) || true
    if ! (cd "$root/python" && "$PEGGLE_PYTHON" -c "import peggle_gym._hot" 2>/dev/null); then
        setup_say "error: could not build peggle_gym._hot (python/peggle_gym/_hot.c) in place. It needs a C compiler and Python's headers (Debian: apt-get install python3-dev); the compiler's message: cd python && $PEGGLE_PYTHON setup.py build_ext --inplace"
        exit 1
    fi
}
