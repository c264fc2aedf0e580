"""Robustness: faults, bursts, slow clients and hostile input, each reproduced against the real app."""
