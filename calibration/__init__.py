"""Tray and die profiles: building them (from labelled shots, by clustering free rolls, or live),
saving and loading them, and checking them.
"""
