# A throwaway PostgreSQL server for the store tests: sourced by scripts/test.sh (after scripts/lib/install.sh),
# or on its own to run only the PostgreSQL tests (README, "Tests on PostgreSQL"):
#
#   source scripts/lib/install.sh; source scripts/lib/postgres.sh; start_test_postgres
#   swift test --filter Postgres
#
# start_test_postgres installs Debian's PostgreSQL when it is missing, makes a cluster in a new temporary folder
# owned by an unprivileged user (PostgreSQL refuses to run as root, and the tests may run as root), starts it on
# a free loopback port with its unix socket in that folder, trusting loopback connections of its one role, and
# exports BIKERIDE_TEST_DATABASE_URL. An EXIT trap stops the server and removes the folder, whatever happens.
# Each test makes and drops its own database on that server.

# The user the cluster runs as when this script runs as root.
postgres_test_os_user=nobody
postgres_test_dir=""
postgres_test_bin=""

# Runs a PostgreSQL program as the cluster's owner.
as_postgres_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u "$postgres_test_os_user" -- "$@"
    else
        "$@"
    fi
}

# The folder of initdb and pg_ctl: Debian puts them outside PATH, under /usr/lib/postgresql/VERSION/bin.
find_postgres_bin() {
    local dir
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        dirname "$(command -v initdb)"
        return 0
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

# A TCP port on loopback that nothing listens on now (a race with another program is possible but unlikely:
# pg_ctl fails clearly then).
free_loopback_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

stop_test_postgres() {
    if [ -n "$postgres_test_dir" ] && [ -d "$postgres_test_dir" ]; then
        if [ -f "$postgres_test_dir/data/postmaster.pid" ]; then
            as_postgres_owner "$postgres_test_bin/pg_ctl" -D "$postgres_test_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
        rm -rf "$postgres_test_dir"
    fi
    postgres_test_dir=""
    unset BIKERIDE_TEST_DATABASE_URL BIKERIDE_TEST_POSTGRES_CTL BIKERIDE_TEST_POSTGRES_DATA BIKERIDE_TEST_POSTGRES_OWNER BIKERIDE_TEST_POSTGRES_OPTIONS
}

start_test_postgres() {
    if ! find_postgres_bin >/dev/null; then
        # postgresql-15 alone: the server and initdb, without the cluster Debian's postgresql package starts.
        install_system_packages postgresql-15
    fi
    postgres_test_bin="$(find_postgres_bin)" || fail "PostgreSQL's initdb and pg_ctl were not found after installing postgresql-15"
    command -v python3 >/dev/null || fail "python3 is needed to find a free port for the test PostgreSQL server"

    postgres_test_dir="$(mktemp -d /tmp/bikeride-postgres.XXXXXX)"
    trap stop_test_postgres EXIT
    chmod 700 "$postgres_test_dir"
    if [ "$(id -u)" = 0 ]; then
        chown "$postgres_test_os_user" "$postgres_test_dir"
    fi

    local port role=bikeride_test
    port="$(free_loopback_port)"
    step "starting a throwaway $("$postgres_test_bin/pg_ctl" --version) on 127.0.0.1:$port in $postgres_test_dir"
    as_postgres_owner "$postgres_test_bin/initdb" -D "$postgres_test_dir/data" -U "$role" --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >"$postgres_test_dir/initdb.log" 2>&1 \
        || { cat "$postgres_test_dir/initdb.log" >&2; fail "initdb failed (its output is above)"; }
    # Loopback and the socket in the folder only; fsync off: a throwaway cluster need not survive a power cut.
    local options="-c listen_addresses=127.0.0.1 -p $port -k $postgres_test_dir -c fsync=off -c full_page_writes=off -c max_connections=400"
    as_postgres_owner "$postgres_test_bin/pg_ctl" -D "$postgres_test_dir/data" -l "$postgres_test_dir/server.log" -w -t 60 \
        -o "$options" start >/dev/null \
        || { cat "$postgres_test_dir/server.log" >&2; fail "the test PostgreSQL server did not start (its log is above)"; }
    export BIKERIDE_TEST_DATABASE_URL="postgres://$role@127.0.0.1:$port/postgres"
    # For the fault tests (Tests/faults), which restart this server mid-ride: its pg_ctl, its data folder, and
    # the user it runs as (empty when that is the user running the tests).
    export BIKERIDE_TEST_POSTGRES_CTL="$postgres_test_bin/pg_ctl"
    export BIKERIDE_TEST_POSTGRES_DATA="$postgres_test_dir/data"
    export BIKERIDE_TEST_POSTGRES_OPTIONS="$options"
    if [ "$(id -u)" = 0 ]; then
        export BIKERIDE_TEST_POSTGRES_OWNER="$postgres_test_os_user"
    else
        export BIKERIDE_TEST_POSTGRES_OWNER=""
    fi
}
