"""A trained policy outside training: export to ONNX with metadata, the line-oriented JSON agent server,
and a human playing any agent at the terminal."""
