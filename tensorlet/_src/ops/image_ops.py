"""(family image_ops: being written)"""
