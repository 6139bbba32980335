"""(family debugging: being written)"""
