"""`dicetray` subcommands: calibrate tray, calibrate die."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware_host.commands._shared import help_handler
from firmware_host.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    calibrate = subparsers.add_parser(
        "calibrate",
        help="build tray and die profiles",
        description="Learn what the empty tray or a custom die set looks like, and save it as a profile.",
    )
    kinds = calibrate.add_subparsers(dest="kind", metavar="KIND", parser_class=type(calibrate))
    calibrate.set_defaults(handler=help_handler(calibrate))

    die = kinds.add_parser(
        "die",
        help="learn a custom die set's faces",
        description=(
            "From labelled photos (--from DIR: one subfolder of photos per face label, faces.toml for "
            "numbers and symbols) or by clustering the top faces of free rolls: saved frames (--auto DIR "
            "--faces N) or live from a camera (--camera SPEC --faces N --rolls N), one frame per settled roll."
        ),
    )
    die.add_argument("name", metavar="NAME", help="profile name, e.g. barbarian")
    source = die.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="DIR", type=Path, help="folder of labelled face photos")
    source.add_argument("--auto", metavar="DIR", type=Path, help="folder of frames of free rolls")
    source.add_argument(
        "--camera", nargs="?", const="", metavar="SPEC",
        help="roll in front of this camera (sim[:SEED], usb:N, picamera, replay:DIR; default: the config's camera), at the config's frame size",
    )
    die.add_argument(
        "--faces", type=int, default=6, metavar="N", help="how many distinct faces the die has (--auto, --camera)"
    )
    die.add_argument(
        "--rolls", type=int, default=30, metavar="N", help="settled rolls to take from the camera (--camera; default 30)"
    )
    die.add_argument(
        "--labels", metavar="FILE", type=Path,
        help="name the clusters from this TOML file instead of asking (--auto, --camera)",
    )
    die.add_argument("--sheets", metavar="DIR", type=Path, help="where to write the contact sheets (--auto, --camera)")
    die.add_argument("--config", metavar="FILE", help="TOML config file: its camera and frame size (--camera)")
    die.add_argument("--force", action="store_true", help="replace a saved profile of the same name")
    die.set_defaults(handler=run_die)

    tray = kinds.add_parser(
        "tray",
        help="learn the empty tray",
        description=(
            "Learn the empty tray: background, region of interest, ArUco corner markers, die size and which "
            "way the camera looks. From photos (--from IMAGE... --dice IMAGE...) or with the tray's camera "
            "(--camera, at the config's frame size): photos of the empty tray, then settled rolls of pip dice."
        ),
    )
    tray_source = tray.add_mutually_exclusive_group(required=True)
    tray_source.add_argument("--from", dest="images", nargs="+", metavar="IMAGE", type=Path,
                             help="photos of the empty tray (several: their median is used)")
    tray_source.add_argument(
        "--camera", nargs="?", const="", metavar="SPEC",
        help="take the photos with this camera (sim[:SEED], usb:N, picamera, replay:DIR; default: the config's camera)",
    )
    tray.add_argument("--dice", nargs="*", default=[], metavar="IMAGE", type=Path,
                      help="photos of the tray with dice in it, to measure the die size and, with pip dice, tell which way the camera looks (--from)")
    tray.add_argument("--rolls", type=int, default=3, metavar="N",
                      help="settled rolls of pip dice to take after the empty tray (--camera; default 3, 0 for none)")
    tray.add_argument("--config", metavar="FILE", help="TOML config file: its camera and frame size (--camera)")
    tray.add_argument("--name", default="tray", help="profile name (default: tray)")
    tray.add_argument("--force", action="store_true", help="replace a saved profile of the same name")
    tray.set_defaults(handler=run_tray)


def run_die(args: argparse.Namespace) -> int:
    from calibration.profiles import profile_path, save_profile

    target = profile_path(args.name)
    if target.exists() and not args.force:
        raise UsageError(f"profile {args.name!r} exists already at {str(target)!r}; pass --force to replace it")
    if args.source is not None:
        from calibration.build import build_from_folder

        profile = build_from_folder(args.name, args.source)
    else:
        profile = _auto(args)
    folder = save_profile(profile, overwrite=args.force)
    fit = profile.fit
    print(
        f"saved die profile {profile.name!r} to {str(folder)!r}: {len(profile.faces)} faces, "
        f"{profile.exemplar_count()} examples; held out {fit.get('held_out_right', 0)}/{fit.get('held_out_reads', 0)} read right"
    )
    for face in profile.faces:
        symbol = f" symbol {face.symbol}" if face.symbol else ""
        pips = " (pips)" if face.pips else ""
        print(f"  {face.label}: {face.value}{symbol}{pips}, {len(profile.exemplars.get(face.label, ()))} examples")
    from calibration.build import report_notes

    for note in report_notes(profile):
        print(f"  {note}")
    return 0


def _auto(args: argparse.Namespace) -> Any:
    from calibration.auto import ask_names, cluster_folder, names_from_file, profile_from_clusters

    if args.faces < 1 or args.faces > 6 * 4:
        raise UsageError(f"--faces {args.faces!r}: a die has 1 to 24 faces")
    if args.labels is None and not sys.stdin.isatty():
        # Said before the rolls are taken, not after: rolls already made at the table are not to be thrown away.
        raise UsageError(f"--{'camera' if args.camera else 'auto'} needs --labels FILE when there is no terminal to ask at")
    sheets = args.sheets if args.sheets is not None else Path(f"{args.name}-clusters")
    if args.camera is not None:
        clustering, spec = _live_clustering(args, sheets)
        source = f"camera {spec}"
    else:
        clustering = cluster_folder(args.auto, args.faces, sheets)
        source = str(args.auto)
    print(f"found {clustering.crop_count} top faces in {clustering.frame_count} frames; {len(clustering.clusters)} clusters:")
    for cluster in clustering.clusters:
        print(f"  cluster {cluster.number}: {len(cluster.members)} faces, sheet {str(cluster.sheet)!r}")
    for warning in clustering.warnings:
        print(f"  warning: {warning}")
    if args.labels is not None:
        names = names_from_file(args.labels, clustering)
    else:
        names = ask_names(clustering, input, print)
    return profile_from_clusters(args.name, clustering, names, source=source)


def _live_clustering(args: argparse.Namespace, sheets: Path) -> tuple[Any, str]:
    """Clusters the top faces of ``--rolls`` settled rolls seen by ``--camera`` (the config's
    camera when no spec is given) at the config's frame size: the dice as the tray will read
    them, so their shots are no sharper than the rolls they are matched with. Returns the
    clustering and the camera's spec."""
    from calibration.auto import cluster_frames

    if args.rolls < 1:
        raise UsageError(f"--rolls {args.rolls!r}: take at least one roll")
    camera, spec, fps = _config_camera(args)
    try:
        print(f"roll the dice {args.rolls} times in front of {spec!r}; each settled roll is taken")
        frames = _settled_rolls(camera, args.rolls, fps)
    finally:
        camera.close()
    return cluster_frames(frames, args.faces, sheets), spec


def _settled_rolls(camera: Any, rolls: int, fps: float) -> list[Any]:
    """One frame for each of ``rolls`` settled rolls, each said as it is taken; a recording that
    ends first gives what it had, and the shortfall is said."""
    from calibration.auto import settled_frames
    from hardware.camera import ReplayFinished

    frames: list[Any] = []
    try:
        for frame in settled_frames(camera, rolls, fps=fps):
            frames.append(frame)
            print(f"  roll {len(frames)}/{rolls} taken ({frame.shape[1]}x{frame.shape[0]})", flush=True)
    except ReplayFinished:
        pass  # a recording holds what it holds
    if len(frames) < rolls:
        print(f"  warning: the camera gave only {len(frames)} settled rolls of {rolls}")
    return frames


def _config_camera(args: argparse.Namespace) -> tuple[Any, str, float]:
    """The camera ``--camera`` names (the config's when it names none), opened at the config's
    frame size and rate: the camera, its spec and its frames a second."""
    from firmware_host.config import load_config
    from hardware.camera import open_camera

    config = load_config(args.config)
    spec = args.camera or str(config.camera)
    frames = config.frames
    camera = open_camera(spec, width=frames.width, height=frames.height, fps=frames.fps)
    return camera, spec, float(getattr(camera, "fps", frames.fps) or frames.fps)


#: Frames a camera gives before the empty tray's are taken: its exposure settles and stale
#: buffers drain.
CAMERA_SETTLING = 6


def run_tray(args: argparse.Namespace) -> int:
    from calibration.paths import profiles_directory
    from calibration.tray import calibrate_tray_from_files, save_tray_profile

    target = profiles_directory() / args.name
    if target.exists() and not args.force:
        # Said before any photo is taken: the owner's rolls are not to be thrown away.
        raise UsageError(f"tray profile {args.name!r} exists already at {str(target)!r}; pass --force to replace it")
    if args.camera is not None:
        if args.dice:
            raise UsageError("--dice names photos; with --camera the dice are rolled in front of the camera (--rolls N)")
        profile = _tray_from_camera(args)
    else:
        profile = calibrate_tray_from_files(args.name, args.images, args.dice)
    folder = save_tray_profile(profile, overwrite=args.force)
    print(f"saved tray profile {profile.name!r} to {str(folder)!r}: {profile.describe()}")
    for note in profile.notes():
        print(f"  note: {note}")
    return 0


def _tray_from_camera(args: argparse.Namespace) -> Any:
    """A tray profile from the tray's camera at the config's frame size (the size the service
    reads, so the profile serves it): ``EMPTY_SHOTS`` frames of the empty tray, then
    ``--rolls`` settled rolls of pip dice."""
    from calibration.tray import EMPTY_SHOTS, calibrate_tray

    if args.rolls < 0:
        raise UsageError(f"--rolls {args.rolls!r}: take 0 or more rolls")
    camera, spec, fps = _config_camera(args)
    empty: list[Any] = []
    dice: list[Any] = []
    try:
        if sys.stdin.isatty():
            input(f"take everything out of the tray under {spec!r}, then press Enter: ")
        for _ in range(CAMERA_SETTLING):
            camera.read()
        empty = [camera.read() for _ in range(EMPTY_SHOTS)]
        print(f"took {len(empty)} photos of the empty tray ({empty[0].shape[1]}x{empty[0].shape[0]})")
        if args.rolls:
            print(f"now roll pip dice into the tray {args.rolls} times; each roll is taken once the dice lie still")
            dice = _settled_rolls(camera, args.rolls, fps)
    finally:
        camera.close()
    called = [f"empty-tray frame {i + 1} from camera {spec!r}" for i in range(len(empty))]
    return calibrate_tray(args.name, empty, dice, empty_names=called)
