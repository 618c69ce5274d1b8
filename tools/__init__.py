"""Development-time tools (scene renderer, model training). Never imported at run time."""
