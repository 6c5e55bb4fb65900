# Installing what bikeride needs from the system's package manager: sourced by scripts/start.sh and
# scripts/test.sh, not run on its own. Debian and Ubuntu (apt-get); as root, or through sudo.

# The name of the script that sourced this file, for its messages.
script_name="scripts/$(basename "$0")"

step() { printf '\n==> %s\n' "$*"; }

fail() {
    printf '%s: %s\n' "$script_name" "$*" >&2
    exit 1
}

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        fail "need root or sudo to run: $*"
    fi
}

# install_system_packages PACKAGE...: installs with apt-get those of the Debian packages not installed yet.
install_system_packages() {
    local missing=() package
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    command -v apt-get >/dev/null \
        || fail "missing system packages: ${missing[*]}. This script installs them with apt-get (Debian, Ubuntu); install them (or your system's equivalents) by hand, then run it again."
    step "installing system packages: ${missing[*]}"
    as_root apt-get update -qq \
        || fail "apt-get update failed (is the network or the package mirror reachable?)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || fail "could not install ${missing[*]} (apt-get's message is above)"
}
