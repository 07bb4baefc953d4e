#!/bin/sh
# The image's entry point: `server` runs the gRPC server, `gateway` the REST gateway (granian); any other
# command runs as given. Extra arguments go to the server or to the gateway. Configuration is the GAMERULES_*
# environment (README: Configuration).
set -eu
role="${1:-server}"
[ "$#" -gt 0 ] && shift
case "$role" in
    server)
        exec python -m service.api.rpc.server --host "${GAMERULES_HOST:-0.0.0.0}" "$@"
        ;;
    gateway)
        # Listens on GAMERULES_HOST (all interfaces unless set) and GAMERULES_HTTP_PORT (8080 unless set).
        GAMERULES_HOST="${GAMERULES_HOST:-0.0.0.0}" exec python -m service.api.rest.gateway_server "$@"
        ;;
    *)
        exec "$role" "$@"
        ;;
esac
