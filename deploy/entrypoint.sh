#!/bin/sh
# The image's entry point: `server` runs the gRPC server, `gateway` the REST gateway under gunicorn; any other
# command runs as given. Extra arguments go to the server or to gunicorn. Configuration is the GAMERULES_*
# environment (README: Configuration).
set -eu
role="${1:-server}"
[ "$#" -gt 0 ] && shift
case "$role" in
    server)
        exec python -m service.api.server --host "${GAMERULES_HOST:-0.0.0.0}" "$@"
        ;;
    gateway)
        exec gunicorn -c python:service.api.gunicorn_conf --bind "${GAMERULES_GATEWAY_BIND:-0.0.0.0:8080}" "$@" \
            'service.api.gateway:create_app()'
        ;;
    *)
        exec "$role" "$@"
        ;;
esac
