"""Identity: merchants, API keys, authentication and rate limits."""
