"""Pure Dice Throne game logic: dice, rolls, heroes, requirements, damage, turn flow and odds.

Imports only the standard library and numpy; no camera, no files beyond the hero data.

API summary (names are binding; every error subclasses :class:`rules.errors.RulesError` and the builtin
that fits: ``InvalidRollError``/``HeroDataError``/``IllegalActionError`` are ValueErrors,
``UnknownHeroError``/``UnknownAbilityError`` are LookupErrors).

Dice (:mod:`rules.dice`)
    ``Roll.from_notation("1 1 2 5 6", hero=None) -> Roll``; ``roll.notation() -> "1 1 2 5 6"``;
    ``repr(roll) == "Roll.from_notation('1 1 2 5 6')"``; ``Roll.from_faces([1, "sword", ...], hero)``.
    ``roll.faces`` is a tuple of ``Face = int | str``: a number 1-6, or a symbol name when only the
    symbol is known. ``roll.sorted()``, ``roll.numbers``, ``roll.symbols(hero)``,
    ``roll.symbol_counts(hero)``, ``roll.total()``. At most 5 dice (``MAX_DICE``).

Heroes (:mod:`rules.heroes`, data in ``rules/heroes/<id>.toml``, format in docs/heroes.md)
    ``load_hero(id_or_name_or_path, search=()) -> Hero`` (id, display name or alias, any case);
    ``all_heroes(search=()) -> list[Hero]`` sorted by id. ``Hero``: ``id``, ``name``, ``faces``
    (symbol per face 1-6), ``symbols``, ``partial``, ``abilities``; ``hero.symbol_for(face) -> str``,
    ``hero.faces_for(symbol) -> tuple[int, ...]``, ``hero.roll(text) -> Roll``,
    ``hero.ability(name_or_alias) -> Ability``, ``hero.offensive_abilities()``,
    ``hero.defensive_abilities()``, ``hero.ultimate``.
    ``Ability`` (:mod:`rules.abilities`): ``name``, ``kind`` (``AbilityKind`` OFFENSIVE, ULTIMATE,
    DEFENSIVE, PASSIVE), ``tiers`` (``Tier(requirement, effect, text)``), ``damage_type``,
    ``aliases``, ``bonus_roll``, ``defense_dice``, ``roll_attempts``, ``deals_damage``,
    ``is_ultimate``, ``requirement_text``, ``conflicts``.

Requirements (:mod:`rules.requirements`)
    ``Requirement.from_notation("2 sword + 2 strength" | "4 of a kind" | "small straight" | ...)``,
    ``req.match(hero, roll) -> dice indices | None``.
    ``activations(hero, roll) -> list[Activation]``, most valuable first (ultimate first, then
    expected damage). ``Activation``: ``ability`` (name), ``tier`` (1-based), ``tiers``, ``dice``,
    ``dice_indices``, ``effect`` (text), ``damage``, ``damage_type`` (``DamageType`` or None),
    ``unstoppable``, ``bonus_dice``, ``expected_damage``, ``to_json()``.
    ``check_offensive_roll(roll)`` raises InvalidRollError unless it has 5 dice.

Effects (:mod:`rules.effects`)
    ``Effect`` amounts (damage, collateral, heal, cp, opponent_cp, prevent, prevent_half, negate,
    counter, statuses). ``resolve_offense(hero, ability, roll, bonus=None) -> Effect`` (``bonus`` is
    the "Roll N dice" roll), ``resolve_defense(hero, ability, defense_roll) -> Effect``.

Damage (:mod:`rules.damage`)
    ``DamageType`` NORMAL, UNDEFENDABLE, PURE, COLLATERAL, ULTIMATE with ``defendable``,
    ``avoidable``, ``modifiable``, ``special_targeting``. ``final_damage_total(incoming,
    adjustments=[+3, -2], portions=[Portion.prevent_half()], damage_type=...) -> DamageTotal``.

Odds (:mod:`rules.odds`)
    ``odds(hero, dice=None, rolls_left=3) -> OddsReport``: ``report.abilities`` (``AbilityOdds``:
    ``ability``, ``probability``, ``keep``), ``report.best`` (keep set maximising expected damage),
    ``report.to_json()``. ``requirement_odds(hero, requirement, dice, rolls_left)`` for any
    requirement; ``exact=True`` gives Fractions.

Game (:mod:`rules.game`)
    ``Game.new(heroes, mode=GameMode.ONE_VS_ONE, start_player=0, names=None)``; ``game.phase``
    (``Phase``: UPKEEP, INCOME, MAIN_1, OFFENSIVE_ROLL, TARGETING_ROLL, DEFENSIVE_ROLL, MAIN_2,
    DISCARD), ``game.active_player``, ``game.players``, ``game.health(player)``,
    ``game.advance()``, ``game.record_offensive_roll(roll)``, ``game.roll_attempts_left``,
    ``game.activations()``, ``game.select_ability(name | None)``, ``game.record_bonus_roll(roll)``,
    ``game.record_targeting_roll(value)``, ``game.choose_target(player)``,
    ``game.choose_defense(name)``, ``game.record_defensive_roll(roll)``, ``game.resolve()``,
    ``game.sell_card()``, ``game.play_card(cost)``, ``game.undo()``, ``game.copy()``,
    ``game.outcome``. Actions the rules forbid raise ``IllegalActionError`` naming the rule.
"""
