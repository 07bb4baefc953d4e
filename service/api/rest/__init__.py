"""The REST gateway: HTTP+JSON in front of the gRPC server (``gateway``), its front and process (``gateway_asgi``,
``gateway_server``), the pacing of best moves, CORS, the OpenAPI document and its examples, the playground."""
