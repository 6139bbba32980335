"""(family creation: being written)"""
