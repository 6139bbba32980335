"""(family reduce: being written)"""
