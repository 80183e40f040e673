// MainWindow's ROI Manager (ui/main_window.hpp): the dock, its actions, and the named shapes'
// undoable edits; ImageJ ROI files through core/imagej/.
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenu>
#include <algorithm>

#include "core/imagej/imagej_roi.hpp"
#include "core/io/output_rules.hpp"
#include "ui/image_view.hpp"
#include "ui/main_window.hpp"
#include "ui/qt_text.hpp"
#include "ui/roi_manager.hpp"
#include "ui/undo_commands.hpp"

namespace xcorr::ui {

void MainWindow::build_roi_manager() {
  auto* dock = new QDockWidget(tr("ROI Manager"), this);
  dock->setObjectName("roi_manager_dock");
  roi_manager_ = new RoiManager;
  dock->setWidget(roi_manager_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  if (auto* channels = findChild<QDockWidget*>("channels_dock")) tabifyDockWidget(channels, dock);
  connect(roi_manager_, &RoiManager::add_requested, this, [this] { add_last_shape_to_manager(); });
  connect(roi_manager_, &RoiManager::open_requested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open ImageJ ROIs"), {},
                                                      tr("ImageJ ROIs (*.roi *.zip)"));
    if (path.isEmpty()) return;
    const Status s = import_rois(path);
    if (!s.is_ok()) show_error(tr("Open ROIs"), qs(s.message()));
  });
  connect(roi_manager_, &RoiManager::save_requested, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save ROIs for ImageJ"),
                                                      "RoiSet.zip", tr("ImageJ ROI sets (*.zip)"));
    if (path.isEmpty()) return;
    const Status s = export_rois(path);
    if (!s.is_ok()) show_error(tr("Save ROIs"), qs(s.message()));
  });
  connect(roi_manager_, &RoiManager::delete_requested, this,
          [this](const std::vector<int>& rows) { delete_named_rois(rows); });
  connect(roi_manager_, &RoiManager::rename_requested, this,
          [this](int row, const QString& name) { rename_named_roi(row, name); });
  connect(roi_manager_, &RoiManager::use_requested, this,
          [this](const std::vector<int>& rows, bool subtract) { use_named_rois(rows, subtract); });
  connect(roi_manager_, &RoiManager::templates_requested, this,
          [this](const std::vector<int>& rows) { named_rois_as_templates(rows); });
  connect(roi_manager_, &RoiManager::display_changed, this, [this] { refresh_named_rois(); });
  auto* add = new QAction(tr("Add shape to ROI Manager"), this);
  add->setObjectName("roi_add_action");
  add->setShortcut(QKeySequence(tr("Ctrl+T")));
  connect(add, &QAction::triggered, this, [this] { add_last_shape_to_manager(); });
  addAction(add);  // wherever the focus is in the window
  edit_menu_->addAction(add);
  QAction* open = file_menu_->addAction(tr("Open ImageJ &ROIs..."));
  connect(open, &QAction::triggered, roi_manager_, &RoiManager::open_requested);
}

void MainWindow::set_named_rois_internal(const std::vector<dic::NamedRoi>& rois) {
  project_.rois = rois;
  unsaved_ = true;
  roi_manager_->set_rois(rois);
  refresh_named_rois();
}

void MainWindow::change_named_rois(const QString& what, const std::vector<dic::NamedRoi>& after) {
  const std::vector<dic::NamedRoi> before = project_.rois;
  undo_->push(new LambdaCommand(
      what, [this, before] { set_named_rois_internal(before); },
      [this, after] { set_named_rois_internal(after); }));
}

void MainWindow::refresh_named_rois() {
  view_->set_named_rois(project_.rois, roi_manager_->selected(), roi_manager_->show_all());
}

void MainWindow::add_last_shape_to_manager() {
  if (project_.roi.shapes.empty())
    return message(
        tr("Draw a shape with the Rectangle, Ellipse or Polygon tool first; Add keeps "
           "the last one"));
  dic::NamedRoi roi{"", project_.roi.shapes.back()};
  roi.shape.subtract = false;
  for (int n = static_cast<int>(project_.rois.size()) + 1; roi.name.empty(); ++n) {
    const std::string name = "ROI " + std::to_string(n);
    if (std::none_of(project_.rois.begin(), project_.rois.end(),
                     [&](const dic::NamedRoi& r) { return r.name == name; }))
      roi.name = name;
  }
  std::vector<dic::NamedRoi> after = project_.rois;
  after.push_back(roi);
  change_named_rois(tr("Add %1").arg(qs(roi.name)), after);
  roi_manager_->select({static_cast<int>(after.size()) - 1});
  message(tr("Added %1 to the ROI Manager").arg(qs(roi.name)));
}

Status MainWindow::import_rois(const QString& path) {
  auto file = imagej::read_roi_file(path.toStdString());
  if (!file.is_ok()) return file.status();
  std::vector<dic::NamedRoi> after = project_.rois;
  after.insert(after.end(), file.value().rois.begin(), file.value().rois.end());
  change_named_rois(tr("Open ROIs"), after);
  QString text = tr("Opened %1 ROI(s) from %2").arg(file.value().rois.size()).arg(path);
  const std::vector<std::string>& skipped = file.value().skipped;
  if (!skipped.empty()) {
    text += tr("; skipped %1 that are not regions:").arg(skipped.size());
    for (const std::string& s : skipped) text += " " + qs(s) + ";";
    text.chop(1);
  }
  message(text);
  return Status::ok();
}

Status MainWindow::export_rois(const QString& path) {
  std::vector<dic::NamedRoi> rois;
  for (int row : roi_manager_->selected())
    rois.push_back(project_.rois[static_cast<std::size_t>(row)]);
  if (rois.empty()) rois = project_.rois;
  if (rois.empty()) return {ErrorCode::invalid_argument, "no ROIs to save: add or open some first"};
  io::RunPaths paths;
  paths.inputs = {{"the stack", project_.stack_path}};
  paths.outputs = {{"the ROI file", path.toStdString()}};
  XCORR_RETURN_IF_ERROR(io::check_outputs(paths));
  return confirm(imagej::write_roi_zip(path.toStdString(), rois),
                 tr("Saved %1 ROI(s) for ImageJ to").arg(rois.size()), path);
}

void MainWindow::use_named_rois(const std::vector<int>& rows, bool subtract) {
  if (rows.empty()) return;
  dic::Roi after = subtract ? project_.roi : dic::Roi{};
  if (subtract && after.shapes.empty() && source_) {  // cut out of the whole frame
    dic::RoiShape whole;
    whole.width = static_cast<double>(source_->shape().cols);
    whole.height = static_cast<double>(source_->shape().rows);
    after.shapes.push_back(whole);
  }
  for (int row : rows) {
    dic::RoiShape s = project_.rois[static_cast<std::size_t>(row)].shape;
    s.subtract = subtract;
    after.shapes.push_back(s);
  }
  undo_->push(new RoiCommand(subtract ? tr("Subtract ROIs") : tr("Use ROIs"), project_.roi, after,
                             [this](const dic::Roi& r) { set_roi_internal(r); }));
  message(subtract ? tr("%1 shape(s) cut out of the DIC region").arg(rows.size())
                   : tr("The DIC region is now %1 shape(s) of the ROI Manager").arg(rows.size()));
}

void MainWindow::named_rois_as_templates(const std::vector<int>& rows) {
  std::vector<TemplateRect> after = project_.templates;
  for (int row : rows) {
    const dic::RoiShape& s = project_.rois[static_cast<std::size_t>(row)].shape;
    const dic::PixelBox box = dic::pixel_box(s);  // clipped to the frame
    TemplateRect t{std::max<Index>(box.x0, 0), std::max<Index>(box.y0, 0), 0, 0};
    t.width = (source_ ? std::min(box.x1, source_->shape().cols) : box.x1) - t.x;
    t.height = (source_ ? std::min(box.y1, source_->shape().rows) : box.y1) - t.y;
    if (t.width < 2 || t.height < 2) continue;  // outside the frame
    after.push_back(t);
  }
  const std::vector<TemplateRect> before = project_.templates;
  const auto added = after.size() - before.size();
  if (added == 0) return message(tr("The selected shapes lie outside the frame"));
  undo_->push(new LambdaCommand(
      tr("Templates from ROIs"), [this, before] { set_templates_internal(before); },
      [this, after] { set_templates_internal(after); }));
  message(tr("Added %1 template(s) from the ROI Manager").arg(added));
}

void MainWindow::delete_named_rois(const std::vector<int>& rows) {
  if (rows.empty()) return;
  std::vector<dic::NamedRoi> after;
  for (std::size_t k = 0; k < project_.rois.size(); ++k)
    if (!std::binary_search(rows.begin(), rows.end(), static_cast<int>(k)))
      after.push_back(project_.rois[k]);
  roi_manager_->select({});
  change_named_rois(tr("Delete ROIs"), after);
  message(tr("Deleted %1 ROI(s) (Edit > Undo brings them back)").arg(rows.size()));
}

void MainWindow::rename_named_roi(int row, const QString& name) {
  if (row < 0 || row >= static_cast<int>(project_.rois.size())) return;
  if (name.trimmed().isEmpty() ||
      name.toStdString() == project_.rois[static_cast<std::size_t>(row)].name)
    return set_named_rois_internal(project_.rois);  // the old name back in the table
  std::vector<dic::NamedRoi> after = project_.rois;
  after[static_cast<std::size_t>(row)].name = name.trimmed().toStdString();
  change_named_rois(tr("Rename ROI"), after);
}

}  // namespace xcorr::ui
