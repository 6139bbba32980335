"""Utilities shared across tensorlet (nested structures, ...)."""
