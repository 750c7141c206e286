"""ppf's evaluation: the test kernel, the VM layer and the harness (eval/README.md)."""
