"""The transport: protobuf codec, gRPC servicer and server, REST gateway. Engines never import this."""
