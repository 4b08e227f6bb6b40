"""Player skill ratings (pure; see omerta.ratings.model)."""

from omerta.ratings.model import (
    DEFAULT_PARAMS,
    SCORE,
    ModelParams,
    Outcome,
    Rating,
    SideState,
    display,
    inflate,
    new_rating,
    new_side,
    predict,
    provisional,
    update,
)

__all__ = [
    "DEFAULT_PARAMS",
    "SCORE",
    "ModelParams",
    "Outcome",
    "Rating",
    "SideState",
    "display",
    "inflate",
    "new_rating",
    "new_side",
    "predict",
    "provisional",
    "update",
]
