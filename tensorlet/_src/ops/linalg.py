"""(family linalg: being written)"""
