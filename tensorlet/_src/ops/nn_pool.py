"""(family nn_pool: being written)"""
