// Gateway.
