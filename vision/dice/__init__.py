"""The stages of the classical dice reader: pip candidates, grouping into faces, faces to dice."""
