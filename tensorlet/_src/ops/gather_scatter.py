"""(family gather_scatter: being written)"""
