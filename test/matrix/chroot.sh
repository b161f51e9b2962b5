# The version matrix's Debian chroots, shared by test/matrix/run-matrix and
# test/package/run (sourced, not run). Before sourcing, set SRC (the source tree),
# PACKAGES (what prepare_chroot installs), REBUILD and UPGRADE (0 or 1); run as root,
# in a private mount namespace (the callers unshare themselves).
#
# Each chroot is cached in $TCPDIAG_MATRIX_CACHE/<suite> (default
# /var/cache/tcpdiag-matrix). The debootstrap of a suite is also kept untouched as
# <suite>-base, from which test/package/run makes its clean systems without a second
# debootstrap.
CACHE=${TCPDIAG_MATRIX_CACHE:-/var/cache/tcpdiag-matrix}
MAX_AGE_DAYS=${TCPDIAG_MATRIX_MAX_AGE_DAYS:-7}
CHROOT_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
            LANG=C.UTF-8 LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
            TCPDIAG_SANITIZE="${TCPDIAG_SANITIZE:-0}")
# pip in the chroot trusts the host's certificates (mount_chroot copies them).
HOST_CA_BUNDLE=$(for f in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
                     [ -n "$f" ] && [ -r "$f" ] && { echo "$f"; break; }; done || true)
CHROOT_CA_BUNDLE=/etc/ssl/tcpdiag-host-ca.crt
[ -z "$HOST_CA_BUNDLE" ] || CHROOT_ENV+=(PIP_CERT="$CHROOT_CA_BUNDLE")
# The Debian mirror this machine's apt uses (the first non-security one).
mirror() {
    if [ -n "${TCPDIAG_MATRIX_MIRROR:-}" ]; then echo "$TCPDIAG_MATRIX_MIRROR"; return; fi
    local url
    url=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
              2>/dev/null |
          sed -n -e 's/^[[:space:]]*URIs:[[:space:]]*//p' \
                 -e 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
          tr ' ' '\n' | grep -E '^https?://' | grep -E '/debian/?$' | grep -v security | head -n 1 || true)
    echo "${url:-http://deb.debian.org/debian}"
}

MOUNTED=()
unmount_all() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        umount "${MOUNTED[i]}" 2>/dev/null || umount -l "${MOUNTED[i]}" 2>/dev/null || true
    done
    MOUNTED=()
}
mount_chroot() {
    local root=$1
    mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc"; MOUNTED+=("$root/proc"); }
    mountpoint -q "$root/dev" || { mount --bind /dev "$root/dev"; MOUNTED+=("$root/dev"); }
    mountpoint -q "$root/dev/pts" || { mount --bind /dev/pts "$root/dev/pts"; MOUNTED+=("$root/dev/pts"); }
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # The host's trusted certificates, so that the chroot reaches PyPI (./run installs
    # duckdb with pip) through whatever TLS proxy the host itself trusts. They go where
    # no package writes: the chroot's own ca-certificates trigger rebuilds
    # /etc/ssl/certs/ca-certificates.crt from its packages and drops a copy put there.
    if [ -n "$HOST_CA_BUNDLE" ]; then
        mkdir -p "$root$(dirname "$CHROOT_CA_BUNDLE")"
        cp -L "$HOST_CA_BUNDLE" "$root$CHROOT_CA_BUNDLE"
    fi
}

in_chroot() {
    local root=$1; shift
    chroot "$root" /usr/bin/env -i "${CHROOT_ENV[@]}" "$@"
}

missing_packages() {
    local root=$1 pkg missing=()
    for pkg in "${PACKAGES[@]}"; do
        in_chroot "$root" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
            grep -q "install ok installed" || missing+=("$pkg")
    done
    echo "${missing[*]}"
}

# Creates the cached chroot of a suite, or brings a cached one up to date.
prepare_chroot() {
    local suite=$1 root=$CACHE/$1 missing
    if [ "$REBUILD" = 1 ] && [ -d "$root" ]; then
        echo "== $suite: removing the cached chroot $root"
        rm -rf --one-file-system "$root" "$CACHE/$suite.updated"
    fi
    if [ ! -d "$root" ]; then
        echo "== $suite: debootstrap (minbase) from $(mirror) into $root"
        rm -rf --one-file-system "$root.new"
        # The packages themselves are installed with apt below: its resolver copes with
        # what debootstrap's --include cannot (sid needed an apt-get -f install).
        debootstrap --variant=minbase "$suite" "$root.new" "$(mirror)" > "$CACHE/$suite.debootstrap.log" 2>&1 ||
            { tail -n 30 "$CACHE/$suite.debootstrap.log" >&2; return 1; }
        # Untouched, for test/package/run's clean systems (cp -a: a few seconds).
        if [ ! -d "$CACHE/$suite-base" ]; then
            rm -rf --one-file-system "$CACHE/$suite-base.new"
            cp -a "$root.new" "$CACHE/$suite-base.new" && mv "$CACHE/$suite-base.new" "$CACHE/$suite-base"
        fi
        mv "$root.new" "$root"
    fi
    mount_chroot "$root"
    missing=$(missing_packages "$root")
    local upgrade=$UPGRADE stamp=$CACHE/$suite.updated
    if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mtime +"$MAX_AGE_DAYS")" ]; then
        upgrade=1
    fi
    if [ -n "$missing" ] || [ "$upgrade" = 1 ]; then
        echo "== $suite: apt-get update${missing:+, install $missing}$([ "$upgrade" = 0 ] || echo ", dist-upgrade")"
        echo "wireshark-common wireshark-common/install-setuid boolean false" |
            in_chroot "$root" debconf-set-selections
        # A mirror that serves a frozen copy of the archive (as this machine's does)
        # has sid's Release past its Valid-Until (a week): apt then refuses the lists.
        # Signatures are still checked; only the expiry date is waived, and loudly.
        if ! in_chroot "$root" apt-get update -q; then
            echo "== $suite: apt-get update failed; retrying with Acquire::Check-Valid-Until=false" >&2
            in_chroot "$root" apt-get update -q -o Acquire::Check-Valid-Until=false
        fi
        in_chroot "$root" apt-get -f install -y -q
        if [ "$upgrade" = 1 ]; then
            in_chroot "$root" apt-get dist-upgrade -y -q --no-install-recommends
        fi
        if [ -n "$missing" ]; then
            # shellcheck disable=SC2086
            in_chroot "$root" apt-get install -y -q --no-install-recommends $missing
        fi
        in_chroot "$root" apt-get clean
        missing=$(missing_packages "$root")
        [ -z "$missing" ] || { echo "$suite: still missing: $missing" >&2; return 1; }
        touch "$stamp"
    fi
}

# Copies the working tree (tracked and untracked files, not ignored ones) into the chroot.
copy_source() {
    local dest=$1
    rm -rf --one-file-system "$dest"
    mkdir -p "$dest"
    if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
             while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
             tar --null -T - -cf -) | tar -C "$dest" -xf -
    else
        tar -C "$SRC" --exclude='./build*' --exclude=./.git --exclude=__pycache__ -cf - . |
            tar -C "$dest" -xf -
    fi
    chmod -R a+rX "$dest"
}
