"""(family strings_ops: being written)"""
