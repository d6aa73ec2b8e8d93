# Renders a brick's VTK output headless with ParaView (Debian's paraview package, pvbatch, offscreen):
#   pvbatch --force-offscreen-rendering docs/figures/render_vtk.py IN.vtu OUT_PREFIX [FIELD]
# writes OUT_PREFIX_solution.png (the field, default u, on the domain with the cells of y < 0.3 taken away, whole
# cells: a crinkle clip keeps the Lagrange cells, subdivided twice so the Q_k field shows its curvature) and
# OUT_PREFIX_ranks.png (the whole domain, the cells coloured by the MPI rank that owns them), seen from (2.6, -1.6, 2.3)
# towards a unit box. ParaView's Debian build renders through X: run it under xvfb-run (docs/figures/README.md).
import sys

from paraview.simple import Clip, ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetScalarBar, Hide, SaveScreenshot, Show, XMLUnstructuredGridReader

infile, prefix = sys.argv[1], sys.argv[2]
field = sys.argv[3] if len(sys.argv) > 3 else "u"
src = XMLUnstructuredGridReader(FileName=[infile])
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 800]
view.OrientationAxesVisibility = 0
try:  # ParaView 5.10+: the palette would override the background
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
view.Background = [1.0, 1.0, 1.0]
clip = Clip(Input=src)
clip.ClipType = "Plane"
clip.ClipType.Origin = [0.5, 0.3, 0.5]
clip.ClipType.Normal = [0.0, 1.0, 0.0]
clip.Invert = 0
clip.Crinkleclip = 1
cdisp = Show(clip, view)
cdisp.NonlinearSubdivisionLevel = 2
view.CameraPosition = [2.6, -1.6, 2.3]
view.CameraFocalPoint = [0.5, 0.5, 0.45]
view.CameraViewUp = [0.0, 0.0, 1.0]
view.ResetCamera()
ColorBy(cdisp, ("POINTS", field))
cdisp.RescaleTransferFunctionToDataRange(True, False)
cdisp.SetScalarBarVisibility(view, True)
bar = GetScalarBar(GetColorTransferFunction(field), view)
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]  # on the white background
SaveScreenshot(prefix + "_solution.png", view, ImageResolution=[1000, 800])
cdisp.SetScalarBarVisibility(view, False)
Hide(clip, view)
disp = Show(src, view)
view.ResetCamera()
ColorBy(disp, ("CELLS", "rank"))
disp.RescaleTransferFunctionToDataRange(True, False)
lut = GetColorTransferFunction("rank")
lut.ApplyPreset("Rainbow Uniform", True)
disp.SetScalarBarVisibility(view, True)
bar = GetScalarBar(lut, view)
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
SaveScreenshot(prefix + "_ranks.png", view, ImageResolution=[1000, 800])
