"""Pure game logic: a game-agnostic core and one folder per game.

The core: :mod:`rules.dice` (faces, rolls of any number of dice, a text notation), :mod:`rules.errors`
and :mod:`rules.games` (the ``TableGame`` protocol, table ``Action`` values, the registry:
``find_game("dicethrone").new(["barbarian", "moon-elf"])``). Dice Throne lives in
:mod:`rules.dicethrone`, Marvel Heroes Battle Dice in :mod:`rules.battledice` and Dice Masters in
:mod:`rules.dicemasters` (both on :mod:`rules.table`, a game whose state is one snapshotted value,
and :mod:`rules.datafiles`, their figure and card files); a new game is a new folder that registers
a ``GameType``.

Imports only the standard library and numpy; no camera, no files beyond the game data. The old
one-game paths (``rules.game``, ``rules.heroes``, ``rules.requirements``...) still import, as aliases
of their ``rules.dicethrone`` modules.

The Dice Throne API (modules under ``rules.dicethrone``; ``scoring`` holds ``activations`` and
``Activation``, ``statuses`` the status effects as data):

API summary (names are binding; every error subclasses :class:`rules.errors.RulesError` and the builtin
that fits: ``InvalidRollError``/``HeroDataError``/``IllegalActionError`` are ValueErrors,
``UnknownHeroError``/``UnknownAbilityError`` are LookupErrors).

Dice (:mod:`rules.dice`)
    ``Roll.from_notation("1 1 2 5 6", hero=None) -> Roll``; ``roll.notation() -> "1 1 2 5 6"``;
    ``repr(roll) == "Roll.from_notation('1 1 2 5 6')"``; ``Roll.from_faces([1, "sword", ...], hero)``.
    ``roll.faces`` is a tuple of ``Face = int | str``: a number 1-6, or a symbol name when only the
    symbol is known. ``roll.sorted()``, ``roll.numbers``, ``roll.symbols(hero)``,
    ``roll.symbol_counts(hero)``, ``roll.total()``. Any number of dice; Dice Throne checks 5 (``OFFENSIVE_DICE``).

Heroes (:mod:`rules.dicethrone.heroes`, data in ``rules/dicethrone/heroes/<id>.toml``, format in docs/heroes.md)
    ``load_hero(id_or_name_or_path, search=()) -> Hero`` (id, display name or alias, any case);
    ``all_heroes(search=()) -> list[Hero]`` sorted by id. ``Hero``: ``id``, ``name``, ``faces``
    (symbol per face 1-6), ``symbols``, ``partial``, ``abilities``; ``hero.symbol_for(face) -> str``,
    ``hero.faces_for(symbol) -> tuple[int, ...]``, ``hero.roll(text) -> Roll``,
    ``hero.ability(name_or_alias) -> Ability``, ``hero.offensive_abilities()``,
    ``hero.defensive_abilities()``, ``hero.ultimate``.
    ``Ability`` (:mod:`rules.dicethrone.abilities`): ``name``, ``kind`` (``AbilityKind`` OFFENSIVE, ULTIMATE,
    DEFENSIVE, PASSIVE), ``tiers`` (``Tier(requirement, effect, text)``), ``damage_type``,
    ``aliases``, ``bonus_roll``, ``defense_dice``, ``roll_attempts``, ``deals_damage``,
    ``is_ultimate``, ``requirement_text``, ``conflicts``.

Requirements (:mod:`rules.dicethrone.requirements`)
    ``Requirement.from_notation("2 sword + 2 strength" | "4 of a kind" | "small straight" | ...)``,
    ``req.match(hero, roll) -> dice indices | None``.
    ``activations(hero, roll) -> list[Activation]``, most valuable first (ultimate first, then
    expected damage). ``Activation``: ``ability`` (name), ``tier`` (1-based), ``tiers``, ``dice``,
    ``dice_indices``, ``effect`` (text), ``damage``, ``damage_type`` (``DamageType`` or None),
    ``unstoppable``, ``bonus_dice``, ``expected_damage``, ``to_json()``.
    ``check_offensive_roll(roll)`` raises InvalidRollError unless it has 5 dice.

Effects (:mod:`rules.dicethrone.effects`)
    ``Effect`` amounts (damage, collateral, heal, cp, opponent_cp, prevent, prevent_half, negate,
    counter, statuses). ``resolve_offense(hero, ability, roll, bonus=None) -> Effect`` (``bonus`` is
    the "Roll N dice" roll), ``resolve_defense(hero, ability, defense_roll) -> Effect``.

Damage (:mod:`rules.dicethrone.damage`)
    ``DamageType`` NORMAL, UNDEFENDABLE, PURE, COLLATERAL, ULTIMATE with ``defendable``,
    ``avoidable``, ``modifiable``, ``special_targeting``. ``final_damage_total(incoming,
    adjustments=[+3, -2], portions=[Portion.prevent_half()], damage_type=...) -> DamageTotal``.

Odds (:mod:`rules.dicethrone.odds`)
    ``odds(hero, dice=None, rolls_left=3) -> OddsReport``: ``report.abilities`` (``AbilityOdds``:
    ``ability``, ``probability``, ``keep``), ``report.best`` (keep set maximising expected damage),
    ``report.to_json()``. ``requirement_odds(hero, requirement, dice, rolls_left)`` for any
    requirement; ``exact=True`` gives Fractions.

Game (:mod:`rules.dicethrone.game`)
    ``Game.new(heroes, mode=None, start_player=0, names=None)`` (2 heroes: 1v1, 3: King of the
    Hill, 4: 2v2 with teams alternating in turn order). State: ``game.phase`` (``Phase``: UPKEEP,
    INCOME, MAIN_1, OFFENSIVE_ROLL, TARGETING_ROLL, DEFENSIVE_ROLL, MAIN_2, DISCARD; ``.title``),
    ``game.turn``, ``game.active_player``, ``game.players`` (``Player``: index, name, hero, team,
    cp, hand), ``game.health(player)``, ``game.team_health``, ``game.roll_attempts_left``,
    ``game.offensive_roll``, ``game.selected`` (Activation), ``game.bonus_roll``, ``game.target``,
    ``game.defender``, ``game.defense``, ``game.defense_roll``, ``game.needs_target``,
    ``game.defense_allowed``, ``game.exchange`` (``Exchange``: offense/defense ``Effect``,
    ``damage`` ``DamageTotal``, ``counter``, ``health_after``), ``game.outcome`` (``Outcome``:
    ``winner`` team or None for a draw), ``game.log`` (transcript lines), ``game.opponents()``,
    ``game.leaders()``, ``game.activations()``.
    Actions: ``advance() -> Phase`` (skips what the rules skip; leaving the last roll phase applies
    the exchange), ``record_offensive_roll(roll)``, ``select_ability(name | None)``,
    ``record_bonus_roll(roll)``, ``record_targeting_roll(value) -> TargetRule`` (2v2),
    ``choose_target(player)``, ``choose_defense(name)``, ``record_defensive_roll(roll)``,
    ``modify_damage(amount)``, ``add_portion(Portion)``, ``resolve() -> Exchange``, ``sell_card()``,
    ``play_card(cost, instant=False, player=None, kind=CardKind, effect="add 2")``,
    ``play_upgrade(ability, level, cost)``, ``spend_status(player, name, die=None, remove=None)``,
    ``can_spend(player, name)``, ``choose(option)`` (an "Or"), ``record_status_roll(die)``
    (Blinded), ``gain_status`` / ``raise_stack_limit`` / ``set_health`` (corrections),
    ``preview() -> Exchange`` (what resolve would do, nothing changed). ``undo()`` takes back the
    last action (``can_undo``); ``copy()`` is an independent copy. A failed action changes nothing.
    Actions the rules forbid raise ``IllegalActionError`` whose message ends with the rule, e.g.
    ``(Offensive Roll Phase: up to 3 roll attempts)``. ``game.play("roll 1 2 3 4 5")`` takes any
    action in record notation; ``game.actions`` is the game's record so far, ``game.to_json()`` its
    state.

Statuses (:mod:`rules.dicethrone.statuses`, data in ``statuses.toml``, docs/statuses.md)
    ``find_status(name) -> Status`` (stack limit, spend kind, upkeep damage, unknowns);
    ``player.statuses`` maps names to counts.

Records (:mod:`rules.records`, docs/game-records.md)
    ``GameRecord.from_text(text, source)``, ``GameRecord.of(game)``, ``record.notation()``,
    ``replay(record) -> TableGame``; ``RecordError`` names the line and the rule.
"""
