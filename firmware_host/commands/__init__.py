"""Subcommand groups of ``dicetray``; each module registers its own parsers."""

from firmware_host.commands import (
    calibrate_cmd,
    demo_cmd,
    profiles_cmd,
    records_cmd,
    rolllog_cmd,
    rules_cmd,
    service_cmd,
    train_cmd,
    vision_cmd,
)

COMMAND_MODULES = (
    demo_cmd, service_cmd, vision_cmd, calibrate_cmd, profiles_cmd, rules_cmd, records_cmd, rolllog_cmd, train_cmd
)
