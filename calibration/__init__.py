"""Tray and die profiles: building them (from labelled shots, by clustering free rolls, or live),
saving and loading them, and checking them.

Die profiles (:mod:`calibration.profiles`)::

    from calibration.build import build_from_folder
    from calibration.profiles import load_profile, save_profile, list_profiles, remove_profile

    profile = build_from_folder("barbarian", "photos/")   # DIR/<label>/*.png + faces.toml
    save_profile(profile)                                  # state dir: profiles/barbarian/
    profile = load_profile("barbarian")                    # or a path to the folder / profile.json
    profile.classifier().match(crop)                       # FaceMatch: face, status, confidence
    profile.face("sword-2").value                          # 2

- :class:`~calibration.profiles.DieProfile`: ``name``, ``faces`` (each a
  :class:`vision.profile_reader.CalibratedFace`: ``label``, ``value`` 1-6, optional ``symbol``,
  ``pips``), ``exemplars`` (label -> square crops), ``settings`` (fitted
  :class:`vision.profile_reader.MatcherSettings`), ``classifier()``.
- :func:`~calibration.build.build_from_folder` / :func:`~calibration.build.build_profile`: checks (an
  empty folder, a face without examples, corrupt photos, a photo with no die or several) and fitting
  (:mod:`calibration.fitting`: accept distance and the confidence table, from held-out reads).
  Faces that look alike are reported, not refused: ``profile.fit["unsure"]``
  (:class:`~calibration.build.UnsurePair`: the pair, how often the cross-check confused it, the
  shots that would help).
- :func:`~calibration.finding.die_crop`: the die of any calibration photo (a crop at any margin, a
  single-die or a tray photo), found by the learned detector.
- Errors: :class:`~calibration.errors.ProfileError` (``ValueError``) names the file and the problem;
  :class:`~calibration.errors.CalibrationMissing` (``LookupError``) when there is no such profile.

From free rolls (:mod:`calibration.auto`)::

    clustering = cluster_folder("rolls/", faces=6, sheets=Path("sheets"))   # or cluster_frames(
    names = names_from_file(Path("labels.toml"), clustering)                #   settled_frames(camera, 30), 6)
    profile = profile_from_clusters("barbarian", clustering, names)        # or ask_names(clustering, input, print)

The tray (:mod:`calibration.tray`)::

    tray = calibrate_tray("tray", empty_frames, frames_with_dice)   # background, ROI, ArUco, die size, view
    save_tray_profile(tray); load_tray_profile().hint()             # a vision.profile_reader.TrayHint

``profile.reader(saved_tray_hint())`` reads a die set: a :class:`vision.reader.DiceReader` (the
learned detector, with the body finder against the saved tray or the pip finder), or for a set of
six plain pip faces the plain reader naming the set's faces (:class:`vision.pip_set.PipSetReader`). Command line: ``dicetray calibrate die NAME --from DIR``
/ ``--auto DIR --faces N [--labels FILE]`` / ``--camera SPEC --faces N --rolls N [--labels FILE]``,
``dicetray calibrate tray --from IMAGE...``,
``dicetray profiles list|show|remove``, ``dicetray read --profile NAME --hero HERO``. See
docs/calibration.md.
"""
