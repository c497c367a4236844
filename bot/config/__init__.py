"""Settings: the process's (``HEYAN_*``, secret files) and each tenant's."""
