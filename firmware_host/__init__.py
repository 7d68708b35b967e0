"""The service on the Pi: the ``dicetray`` command, config, the main loop, game flow and the roll log."""
