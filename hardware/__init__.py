"""The table's hardware: camera sources (picamera2, OpenCV, recorded files) and the GPIO panel.

    from hardware.cameras import open_camera, CameraSource, CameraError
    from hardware.panel import ButtonPanel, PanelWiring, PanelEvent

Submodules are imported on demand so that using the cameras never loads gpiozero and
vice versa.
"""
