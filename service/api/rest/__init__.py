"""The REST gateway: HTTP+JSON in front of the gRPC server: its contract (``gateway``), its one request path
(``gateway_path``) and connections to the server (``gateway_backends``), its front and process
(``gateway_asgi``, ``gateway_server``), the pacing of best moves, CORS, the OpenAPI document and its examples,
the playground."""
