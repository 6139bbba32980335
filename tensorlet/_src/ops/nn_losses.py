"""(family nn_losses: being written)"""
