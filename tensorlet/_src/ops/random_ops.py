"""(family random_ops: being written)"""
