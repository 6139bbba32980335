"""(family segment: being written)"""
