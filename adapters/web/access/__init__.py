"""Who is calling the console: sign-in, sessions, API tokens, the gate to a tenant, and abuse limits."""
