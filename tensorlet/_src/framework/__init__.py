"""Dtypes, shapes, tensors, variables, devices, errors and the execution context."""
