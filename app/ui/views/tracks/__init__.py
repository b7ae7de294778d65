"""The tracks view: identity over tracks, a lane per track over the frames."""
