"""The tray's devices, each behind one narrow seam with a real backend and a simulated one:
camera frame sources, the status LED and tray light, the buttons, and the display.
"""
