"""The gRPC server: its process and workers (``server``), the servicer, where searches run (``searches``) and the
calls' metrics and logs (``calls``)."""
