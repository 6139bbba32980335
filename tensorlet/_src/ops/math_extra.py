"""(family math_extra: being written)"""
