"""Debian's own kernel as a kernel-test variant: see variant.py."""
