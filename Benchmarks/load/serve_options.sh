# Sourced by the load benchmarks. Their clients all come from 127.0.0.1, which `serve` holds to 32 connections by
# default (issue 20: one address may take a sixteenth of the whole); a benchmark of 200 clients lifts that cap to the
# whole (512). A build from before the cap has no such option and needs none.
#   load_serve_options BINARY   # prints the options, one a line
load_serve_options() {
    if "$1" serve --help 2>&1 | grep -q -- '--max-connections-per-address'; then
        printf '%s\n' --max-connections-per-address 512
    fi
}
