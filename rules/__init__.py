"""Pure Dice Throne game logic: dice, rolls, heroes, requirements, damage, turn flow and odds.

Imports only the standard library and numpy; no camera, no files beyond the bundled hero data.
"""
