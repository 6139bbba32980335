"""(family array_ops: being written)"""
