"""Odds speed: every ability of one hero from an empty table with 3 roll attempts.

Target: 50 ms on one core of the development machine (a Raspberry Pi 4 is about 4x slower). The
per-hero requirement tables are built once and cached; the first benchmark measures a call with
them warm (what the tray does between roll attempts), the second the cold first call for a hero.
"""

from rules.dicethrone import odds as odds_module
from rules.dicethrone.heroes import load_hero
from rules.dicethrone.odds import odds


def test_bench_all_abilities_empty_roll_three_attempts(benchmark):
    hero = load_hero("barbarian")
    odds(hero, None, 3)  # build the hero's tables once, as the service does when a game starts
    report = benchmark(odds, hero, None, 3)
    assert len(report.abilities) == len(hero.offensive_abilities())
    assert {a.ability: round(a.probability, 5) for a in report.abilities}["Mighty Blow"] == 0.61544


def test_bench_first_call_including_table_build(benchmark):
    hero = load_hero("moon-elf")

    def cold():
        odds_module._hero_tables.cache_clear()
        odds_module._meets.cache_clear()
        return odds(hero, None, 3)

    report = benchmark(cold)
    assert len(report.abilities) == len(hero.offensive_abilities())
