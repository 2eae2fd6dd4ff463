"""GitHub access: the Gateway protocol, its PyGithub adapter."""
