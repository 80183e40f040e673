#include "ui/main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/batch/batch_run.hpp"
#include "core/dic/job.hpp"
#include "core/dic/result_writers.hpp"
#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/image_io.hpp"
#include "core/io/image_metadata.hpp"
#include "core/io/tiff_integrity.hpp"
#include "core/io/tiff_writer.hpp"
#include "core/version.hpp"
#include "ui/batch_dialog.hpp"
#include "ui/channels_panel.hpp"
#include "ui/dic_panel.hpp"
#include "ui/levels_bar.hpp"
#include "ui/movie.hpp"
#include "ui/profile_panel.hpp"
#include "ui/qt_text.hpp"
#include "ui/register_dialog.hpp"
#include "ui/results_panel.hpp"
#include "ui/roi_manager.hpp"
#include "ui/tool_icons.hpp"
#include "ui/tracking_panel.hpp"
#include "ui/undo_commands.hpp"
#include "ui/window_settings.hpp"

namespace xcorr::ui {
namespace {

// The save dialog's filter for DIC results: one entry per registered writer ("CSV (*.csv)").
QString result_file_filter() {
  QStringList filters;
  for (const dic::ResultWriter& w : dic::result_writers()) {
    QStringList patterns;
    for (const std::string& e : w.extensions) patterns << "*" + qs(e);
    filters << qs(w.name) + " (" + patterns.join(' ') + ")";
  }
  return filters.join(";;");
}

// "rectangle", "ellipse (subtract)": an ROI edit's short name (undo texts stay short).
QString shape_name(const dic::RoiShape& s) {
  const QString kind = s.kind == dic::RoiShapeKind::rectangle ? QObject::tr("rectangle")
                       : s.kind == dic::RoiShapeKind::ellipse ? QObject::tr("ellipse")
                                                              : QObject::tr("polygon");
  return s.subtract ? QObject::tr("%1 (subtract)").arg(kind) : kind;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("XCorr Studio");
  view_ = new ImageView;
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_, 1);
  auto* bar = new QHBoxLayout;
  play_ = new QPushButton(tr("Play"));
  play_->setObjectName("play");
  play_->setCheckable(true);
  play_->setShortcut(QKeySequence(Qt::Key_Space));
  play_->setToolTip(tr("Play the frames in a loop (Space); again to pause"));
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setRange(0, 0);
  slider_->setMinimumWidth(100);
  frame_label_ = new QLabel(tr("no stack"));
  frame_label_->setObjectName("frame_label");
  frame_label_->setMinimumWidth(60);  // long frame names do not widen the window
  frame_label_->setMaximumWidth(320);
  fps_ = new QSpinBox;
  fps_->setRange(1, 60);
  fps_->setValue(5);
  fps_->setSuffix(tr(" fps"));
  fps_->setToolTip(tr("Play speed (frames per second)"));
  bar->addWidget(play_);
  bar->addWidget(fps_);
  bar->addWidget(slider_, 1);
  bar->addWidget(frame_label_);
  layout->addLayout(bar);
  setCentralWidget(central);

  runs_ = new RunController(this);
  undo_ = new QUndoStack(this);
  // While a large TIFF is indexed in the background, the slider and frame names grow.
  index_timer_ = new QTimer(this);
  index_timer_->setInterval(200);
  connect(index_timer_, &QTimer::timeout, this, [this] {
    if (!source_) return index_timer_->stop();
    const bool done = !source_->indexing();
    project_.frame_names.clear();
    for (Index k = 1; k < source_->count(); ++k) project_.frame_names.push_back(source_->source(k));
    slider_->setRange(0, frame_count() - 1);
    refresh_frame_list();
    if (done) {
      index_timer_->stop();
      refresh_actions();
      const Status s = source_->wait_indexed(0);
      if (s.is_ok())
        message(tr("%1 frames indexed").arg(frame_count()));
      else
        show_error(tr("Damaged stack"), qs(s.message()), "open_problem");
    }
  });
  play_timer_ = new QTimer(this);
  play_timer_->setInterval(200);
  connect(fps_, &QSpinBox::valueChanged, this,
          [this](int fps) { play_timer_->setInterval(1000 / fps); });
  connect(play_, &QPushButton::toggled, this, [this](bool on) {
    on ? play_timer_->start() : play_timer_->stop();
    play_->setText(on ? tr("Pause") : tr("Play"));
  });
  connect(play_timer_, &QTimer::timeout, this,
          [this] { show_frame((current_ + 1) % std::max(1, frame_count())); });
  connect(slider_, &QSlider::valueChanged, this, [this](int k) { show_frame(k); });
  connect(view_, &ImageView::shape_drawn, this,
          [this](const dic::RoiShape& s) { add_roi_shape(s); });
  connect(view_, &ImageView::pixel_hovered, this,
          [this](double x, double y, double v, bool inside) {
            const io::ImageScale scale = project_.scale();
            const QString physical = scale.has_length() ? QString(" (%1, %2 %3)")
                                                              .arg(scale.to_unit_x(x), 0, 'g', 5)
                                                              .arg(scale.to_unit_y(y), 0, 'g', 5)
                                                              .arg(qs(scale.unit))
                                                        : QString();
            pixel_label_->setText(inside ? QString("x %1  y %2%3  value %4")
                                               .arg(x, 0, 'f', 1)
                                               .arg(y, 0, 'f', 1)
                                               .arg(physical)
                                               .arg(v, 0, 'g', 6)
                                         : QString());
            (void)point_readout(x, y);
          });
  connect(runs_, &RunController::advanced, this,
          [this](int per_mille, const QString& text, double eta) {
            progress_->setRange(0, 1000);
            progress_->setValue(per_mille);
            progress_->setFormat(text);
            eta_label_->setText(eta < 0 ? tr("ETA ?") : tr("ETA %1 s").arg(eta, 0, 'f', 1));
          });
  connect(runs_, &RunController::ending, this, &MainWindow::run_ending);
  connect(runs_, &RunController::finished, this, [this](bool ok) { emit run_finished(ok); });
  connect(view_, &ImageView::shape_edited, this, [this](int k, const dic::RoiShape& s) {
    dic::Roi after = project_.roi;
    after.shapes[static_cast<std::size_t>(k)] = s;
    undo_->push(new RoiCommand(tr("Edit %1").arg(shape_name(s)), project_.roi, after,
                               [this](const dic::Roi& r) { set_roi_internal(r); }));
  });
  connect(view_, &ImageView::shape_deleted, this, [this](int k) {
    dic::Roi after = project_.roi;
    after.shapes.erase(after.shapes.begin() + k);
    undo_->push(new RoiCommand(tr("Delete shape"), project_.roi, after,
                               [this](const dic::Roi& r) { set_roi_internal(r); }));
  });
  connect(view_, &ImageView::template_drawn, this,
          [this](const TemplateRect& r) { add_template(r); });

  pixel_label_ = new QLabel;
  engine_label_ = new QLabel;
  engine_label_->setObjectName("engine");
  eta_label_ = new QLabel;
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  statusBar()->addWidget(pixel_label_, 1);
  mode_label_ = new QLabel;
  mode_label_->setObjectName("mode");
  statusBar()->addPermanentWidget(mode_label_);
  auto* zoom_label = new QLabel;
  zoom_label->setObjectName("zoom");
  zoom_label->setToolTip(
      tr("Zoom: screen px per image px (View > Fit Ctrl+0, 1:1 Ctrl+1, "
         "Ctrl+plus, Ctrl+minus, the wheel)"));
  statusBar()->addPermanentWidget(zoom_label);
  connect(view_, &ImageView::zoom_changed, zoom_label,
          [zoom_label](double z) { zoom_label->setText(tr("%1 %").arg(z * 100, 0, 'f', 0)); });
  statusBar()->addPermanentWidget(eta_label_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(engine_label_);
  setAcceptDrops(true);
  build_docks();
  build_menus();
  build_roi_manager();
  fit_to_screen(this, QSize(1400, 900));  // restore_settings() puts back the last geometry
  refresh_actions();
  show_mode();
}

void MainWindow::restore_settings() {
  const WindowState saved = saved_window_state();
  if (!saved.geometry.isEmpty()) restoreGeometry(saved.geometry);
  if (!saved.docks.isEmpty()) restoreState(saved.docks);
  if (const QString dic = saved_parameters("dic"); !dic.isEmpty())
    panel_->set_options(with_dic_parameters(panel_->options(), dic));
  if (const QString tracking = saved_parameters("tracking"); !tracking.isEmpty())
    tracking_panel_->set_parameters(tracking);
}

void MainWindow::save_settings() const {
  save_window_state({saveGeometry(), saveState()});
  save_parameters("dic", dic_parameters(panel_->options()));
  save_parameters("tracking", tracking_panel_->parameters());
}

Status MainWindow::open_path(const QString& path) {
  const Status s =
      path.endsWith(".json", Qt::CaseInsensitive) ? open_project(path) : open_stack(path);
  if (s.is_ok())
    remember_recent(path);
  else
    forget_recent(path);
  rebuild_recent_menu();
  return s;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString path = urls.first().toLocalFile();
  if (!keep_or_discard()) return;
  const Status s = open_path(path);
  if (!s.is_ok()) show_error(tr("Open"), qs(s.message()));
}

void MainWindow::rebuild_recent_menu() {
  if (recent_menu_ == nullptr) return;
  recent_menu_->clear();
  const QStringList recent = recent_paths();
  for (const QString& path : recent) {
    recent_menu_->addAction(path, this, [this, path] {
      if (!keep_or_discard()) return;
      const Status s = open_path(path);
      if (!s.is_ok()) show_error(tr("Open recent"), qs(s.message()));
    });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

dic::DicJob MainWindow::project() const {
  return project_.job();
}

Status MainWindow::save_project(const QString& path) {
  project_.display = results_panel_->display_settings().toStdString();
  XCORR_RETURN_IF_ERROR(project_.save(path.toStdString()));
  project_path_ = path;
  unsaved_ = false;
  return confirm(
      Status::ok(),
      project_.results ? tr("Saved the project and its results:") : tr("Saved the project:"), path);
}

Status MainWindow::confirm(const Status& done, const QString& what, const QString& path) {
  if (done.is_ok()) message(what + " " + path);
  return done;
}

bool MainWindow::keep_or_discard() {
  if (!unsaved_) return true;  // a run in progress is cancelled when the window closes
  const QString text = tr("The results of the last run are not saved. Save the project first?");
  const int answer =
      ask_ ? ask_(text)
           : QMessageBox::question(this, tr("Unsaved results"), text,
                                   QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                   QMessageBox::Save);
  if (answer == QMessageBox::Discard) return true;
  if (answer != QMessageBox::Save) return false;
  QString path = project_path_;
  if (path.isEmpty())
    path = QFileDialog::getSaveFileName(this, tr("Save project"), "project.json",
                                        tr("Projects (*.json)"));
  if (path.isEmpty()) return false;
  const Status s = save_project(path);
  if (!s.is_ok()) show_error(tr("Save project"), qs(s.message()));
  return s.is_ok();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (keep_or_discard()) {
    save_settings();
    e->accept();
  } else {
    e->ignore();
  }
}

BatchDialog* MainWindow::batch_dialog() {
  if (batch_ == nullptr) batch_ = new BatchDialog([this] { return project(); }, this);
  return batch_;
}

Status MainWindow::open_project(const QString& path) {
  auto job = dic::read_dic_job(path.toStdString());
  if (!job.is_ok()) return job.status();
  if (job.value().frames.empty()) {
    XCORR_RETURN_IF_ERROR(
        open_stack(QString::fromStdString(job.value().reference), job.value().reference_page));
  } else if (job.value().reference_page != 0) {
    return {ErrorCode::unsupported,
            "the window takes a reference page other than 0 when the job lists no frames (the "
            "stack's other pages are the frames); run this job with `xcorr run`"};
  } else {  // a list of single images: the window's stack of files
    QStringList files = {QString::fromStdString(job.value().reference)};
    for (const std::string& f : job.value().frames) {
      std::error_code ec;
      const Result<int> pages = io::is_tiff_file(f) ? io::check_tiff_integrity(f) : Result<int>(1);
      const bool one_image =
          std::filesystem::is_regular_file(f, ec) && pages.is_ok() && pages.value() == 1;
      if (!one_image) {
        return {ErrorCode::unsupported,
                path.toStdString() + ": its frames '" + f +
                    "' are a folder or a multi-page file; the window opens one stack or a list "
                    "of single images (run it with `xcorr dic --job`)"};
      }
      files << QString::fromStdString(f);
    }
    XCORR_RETURN_IF_ERROR(open_files(files));
  }
  undo_->push(new RoiCommand(tr("Project ROI"), project_.roi, job.value().roi,
                             [this](const dic::Roi& r) { set_roi_internal(r); }));
  panel_->set_options(job.value().options);
  const std::vector<TemplateRect>& templates = job.value().templates;
  if (!templates.empty()) set_templates_internal(templates);
  set_named_rois_internal(job.value().rois);
  project_.display = job.value().display;
  if (!project_.display.empty()) results_panel_->set_display_settings(qs(project_.display));
  project_path_ = path;
  unsaved_ = false;
  // The results saved with the project come back as they were (not computed again).
  auto loaded = project_.load_results(path.toStdString());
  if (!loaded.is_ok()) {
    show_error(tr("Project results"), qs(loaded.status().message()), "results_problem");
  } else if (loaded.value()) {
    if (project_.results) {
      engine_label_->setText(
          tr("ran on %1 (integer guess: %2)")
              .arg(qs(project_.results->device), qs(project_.results->guess_variant)));
    }
    refresh_tracks();
    show_frame(project_.results ? std::max(1, current_) : current_);
    message(tr("%1: results loaded (%2 frames, %3 tracks)")
                .arg(path)
                .arg(project_.results ? project_.results->frames.size() : 0)
                .arg(project_.tracks.size()));
  }
  return Status::ok();
}

void MainWindow::build_menus() {
  QMenu* file = file_menu_ = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open stack..."), QKeySequence::Open, this, [this] {
    if (!keep_or_discard()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open image stack"), {},
                                                      tr("Images (*.tif *.tiff *.png *.bmp)"));
    if (path.isEmpty()) return;
    const Status s = open_path(path);
    if (!s.is_ok()) show_error(tr("Open stack"), qs(s.message()));
  });
  file->addAction(tr("Open &files..."), this, [this] {
    if (!keep_or_discard()) return;
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open image files (one frame each, the first is the reference)"), {},
        tr("Images (*.tif *.tiff *.png *.bmp *.jpg *.jpeg)"));
    if (files.isEmpty()) return;
    const Status s = open_files(files);
    if (!s.is_ok()) show_error(tr("Open files"), qs(s.message()));
  });
  file->addAction(tr("Open &folder..."), this, [this] {
    if (!keep_or_discard()) return;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a folder of images"));
    if (dir.isEmpty()) return;
    const Status s = open_path(dir);
    if (!s.is_ok()) show_error(tr("Open folder"), qs(s.message()));
  });
  file->addAction(tr("&Add frames..."), this, [this] {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Add frames (deformed images)"), {},
                                      tr("Images (*.tif *.tiff *.png *.bmp *.jpg *.jpeg)"));
    if (files.isEmpty()) return;
    const Status s = add_frames(files);
    if (!s.is_ok()) show_error(tr("Add frames"), qs(s.message()));
  });
  file->addAction(tr("Reference from &file..."), this, [this] {
    const QString chosen = QFileDialog::getOpenFileName(
        this, tr("Reference image"), {}, tr("Images (*.tif *.tiff *.png *.bmp *.jpg *.jpeg)"));
    if (chosen.isEmpty()) return;
    const Status s = use_reference_file(chosen);
    if (!s.is_ok()) show_error(tr("Reference"), qs(s.message()));
  });
  recent_menu_ = file->addMenu(tr("Open &recent"));
  rebuild_recent_menu();
  file->addSeparator();
  file->addAction(tr("Open pro&ject..."), this, [this] {
    if (!keep_or_discard()) return;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open project"), {}, tr("Projects (*.json)"));
    if (path.isEmpty()) return;
    const Status s = open_path(path);
    if (!s.is_ok()) show_error(tr("Open project"), qs(s.message()));
  });
  file->addAction(tr("&Save project..."), QKeySequence::Save, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), "project.json",
                                                      tr("Projects (*.json)"));
    if (path.isEmpty()) return;
    const Status s = save_project(path);
    if (!s.is_ok()) return show_error(tr("Save project"), qs(s.message()));
    remember_recent(path);
    rebuild_recent_menu();
  });
  file->addAction(tr("&Batch runs..."), QKeySequence(tr("Ctrl+B")), this, [this] {
    BatchDialog* d = batch_dialog();
    if (!d->running()) d->use_current_project();
    d->show();
    d->raise();
  });
  // A saved drift table applied to the open stack (another channel's file, the raw data).
  file->addAction(tr("&Apply drift table..."), this, [this] {
    if (!source_ || project_.stack_path.empty())
      return show_error(tr("Apply drift table"),
                        tr("Open the multi-page TIFF or hyperstack to correct first"),
                        "register_needs_stack");
    const QString table = QFileDialog::getOpenFileName(this, tr("Drift table to apply"), QString(),
                                                       tr("Drift tables (*.csv)"));
    if (table.isEmpty()) return;
    const std::filesystem::path stack(project_.stack_path);
    const QString out = QFileDialog::getSaveFileName(
        this, tr("Corrected stack"),
        qs((stack.parent_path() / (stack.stem().string() + "_corrected.tif")).string()),
        tr("TIFF (*.tif *.tiff)"));
    if (!out.isEmpty()) apply_drift_table(table, out);
  });
  file->addSeparator();
  export_csv_ = file->addAction(tr("&Export displacements (CSV)..."), this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export CSV"), "dic.csv", result_file_filter());
    if (path.isEmpty()) return;
    const Status s = export_csv(path);
    if (!s.is_ok()) show_error(tr("Export CSV"), qs(s.message()));
  });
  export_frame_ = file->addAction(tr("Export &current frame (CSV)..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export frame CSV"), "frame.csv",
                                                      result_file_filter());
    if (path.isEmpty()) return;
    const Status s = export_frame_csv(path, current_);
    if (!s.is_ok()) show_error(tr("Export CSV"), qs(s.message()));
  });
  export_tracks_ = file->addAction(tr("Export &tracks (CSV)..."), this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export tracks"), "tracks.csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const Status s = export_tracks_csv(path);
    if (!s.is_ok()) show_error(tr("Export tracks"), qs(s.message()));
  });
  export_plot_ = file->addAction(tr("Export &plot (PNG, PDF)..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), "plot.png",
                                                      tr("PNG (*.png);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int width = QInputDialog::getInt(this, tr("Export plot"), tr("Width (px; height 3/4)"),
                                           1600, 16, 20000, 100, &ok);
    if (!ok) return;
    const Status s = export_plot(path, width, width * 3 / 4);
    if (!s.is_ok()) show_error(tr("Export plot"), qs(s.message()));
  });
  export_view_ = file->addAction(tr("Export &view (PNG, TIFF)..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), "figure.png",
                                                      tr("PNG (*.png);;TIFF (*.tif *.tiff)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int width =
        QInputDialog::getInt(this, tr("Export view"), tr("Width (px)"), 1200, 16, 20000, 100, &ok);
    if (!ok) return;
    const Status s = export_view(path, width);
    if (!s.is_ok()) show_error(tr("Export view"), qs(s.message()));
  });
  export_movie_ = file->addAction(tr("Export &movie (GIF)..."), this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export movie"), "movie.gif", tr("GIF (*.gif)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int width =
        QInputDialog::getInt(this, tr("Export movie"), tr("Width (px)"), 512, 16, 4000, 64, &ok);
    if (!ok) return;
    const Status s = export_movie(path, width, fps_->value());
    if (!s.is_ok()) show_error(tr("Export movie"), qs(s.message()));
  });
  refresh_actions();
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, [this] { close(); });

  QMenu* edit = edit_menu_ = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = undo_->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = undo_->createRedoAction(this, tr("&Redo"));
  QList<QKeySequence> redo_keys = QKeySequence::keyBindings(QKeySequence::Redo);
  if (!redo_keys.contains(QKeySequence(tr("Ctrl+Y")))) redo_keys << QKeySequence(tr("Ctrl+Y"));
  redo->setShortcuts(redo_keys);
  edit->addAction(undo);
  edit->addAction(redo);
  addAction(undo);  // the shortcuts work wherever the focus is in the window
  addAction(redo);
  edit->addAction(tr("&Clear ROI"), this, [this] { clear_roi(); });

  QMenu* analysis = menuBar()->addMenu(tr("&Analysis"));
  QToolBar* runs = addToolBar(tr("Analysis"));
  runs->setObjectName("analysis_toolbar");
  const auto run_action = [&](const QString& text, const QString& button, const QString& name,
                              QKeySequence key, QStyle::StandardPixmap icon, auto slot) {
    QAction* a = analysis->addAction(style()->standardIcon(icon), text, this, slot);
    a->setIconText(button);  // the toolbar's short label
    a->setObjectName(name);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WindowShortcut);
    runs->addAction(a);
    return a;
  };
  run_dic_ = run_action(tr("Run &DIC"), tr("Run DIC"), "run_dic", QKeySequence(Qt::Key_F5),
                        QStyle::SP_MediaPlay, [this] { start_dic(); });
  run_tracking_ =
      run_action(tr("&Track templates"), tr("Track"), "run_tracking", QKeySequence(Qt::Key_F6),
                 QStyle::SP_ArrowRight, [this] { start_tracking(); });
  run_register_ = run_action(tr("&Register stack (drift correction)..."), tr("Register"),
                             "run_register", QKeySequence(Qt::Key_F7), QStyle::SP_BrowserReload,
                             [this] { open_register_dialog(); });
  cancel_action_ = run_action(tr("&Cancel run"), tr("Cancel"), "cancel_run",
                              QKeySequence(Qt::SHIFT | Qt::Key_F5), QStyle::SP_MediaStop,
                              [this] { cancel_run(); });
  runs->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Profiling panel"), this, [this] { show_profile_panel(); });
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    if (d != profile_dock_) view->addAction(d->toggleViewAction());
  }
  view->addSeparator();
  const auto view_action = [&](const QString& text, const char* name, QKeySequence key, auto slot) {
    QAction* a = view->addAction(text, this, slot);
    a->setObjectName(name);
    a->setShortcut(key);
  };
  view_action(tr("&Fit"), "zoom_fit", QKeySequence(tr("Ctrl+0")), [this] { view_->fit(); });
  view_action(tr("&1:1 (one screen px per image px)"), "zoom_1to1", QKeySequence(tr("Ctrl+1")),
              [this] { view_->one_to_one(); });
  view_action(tr("Zoom &in"), "zoom_in", QKeySequence::ZoomIn, [this] { view_->zoom_by(1.25); });
  view_action(tr("Zoom &out"), "zoom_out", QKeySequence::ZoomOut,
              [this] { view_->zoom_by(1 / 1.25); });
  view->addSeparator();
  scale_bar_ = view->addAction(tr("&Scale bar"), this, [this] { refresh_annotations(); });
  scale_bar_->setObjectName("scale_bar");
  scale_bar_->setToolTip(tr("A scale bar on the image (needs the stack's pixel size)"));
  time_stamp_ = view->addAction(tr("&Time stamp"), this, [this] { refresh_annotations(); });
  time_stamp_->setObjectName("time_stamp");
  time_stamp_->setToolTip(tr("The frame's time on the image (needs the frame interval)"));
  for (QAction* a : {scale_bar_, time_stamp_}) {
    a->setCheckable(true);
    a->setChecked(true);
  }

  // The image tools: an icon, a key, and a tooltip that says how each is used.
  QToolBar* tools = addToolBar(tr("Tools"));
  tools->setObjectName("tools_toolbar");
  tools->setToolButtonStyle(Qt::ToolButtonIconOnly);
  auto* group = new QActionGroup(this);
  const struct {
    QString name;
    Tool tool;
    Qt::Key key;
    QString how;
  } kinds[] = {
      {tr("Pan"), Tool::pan, Qt::Key_H, tr("drag to move the image, the wheel zooms")},
      {tr("Rectangle"), Tool::rectangle, Qt::Key_R,
       tr("drag a rectangle into the DIC region (with Subtract, out of it)")},
      {tr("Ellipse"), Tool::ellipse, Qt::Key_O,
       tr("drag an ellipse into the DIC region (with Subtract, out of it)")},
      {tr("Polygon"), Tool::polygon, Qt::Key_G,
       tr("click the corners; double-click to close it, Esc drops it")},
      {tr("Template"), Tool::template_rect, Qt::Key_T,
       tr("drag a template to track through the stack (Analysis > Track templates)")},
      {tr("Probe"), Tool::probe, Qt::Key_P,
       tr("click a point: its ZNCC surface against the frame shown (Results > Surface)")},
      {tr("Line"), Tool::line, Qt::Key_L,
       tr("drag a line: u, v and strains along it (Results > Profile)")},
      {tr("Edit"), Tool::edit, Qt::Key_E,
       tr("click a DIC region shape to select it, drag it or its corners, Delete removes it")},
  };
  for (const auto& k : kinds) {
    QAction* a = tools->addAction(tool_icon(k.tool), k.name, this,
                                  [this, t = k.tool, n = k.name, how = k.how] {
                                    view_->set_tool(t);
                                    tool_name_ = n;
                                    show_mode();
                                    statusBar()->showMessage(tr("%1: %2").arg(n, how), 10000);
                                  });
    a->setObjectName("tool_" + k.name.toLower());
    a->setShortcut(QKeySequence(k.key));
    a->setToolTip(tr("%1 (%2): %3").arg(k.name, QKeySequence(k.key).toString(), k.how));
    a->setCheckable(true);
    a->setChecked(k.tool == Tool::pan);
    group->addAction(a);
  }
  QAction* subtract = tools->addAction(subtract_icon(), tr("Subtract"));
  subtract->setCheckable(true);
  subtract->setShortcut(QKeySequence(Qt::Key_S));
  subtract->setToolTip(
      tr("Subtract (S): new shapes cut out of the DIC region instead of adding to it (shown in "
         "red in the status bar)"));
  subtract->setObjectName("subtract");
  connect(subtract, &QAction::toggled, this, [this](bool on) {
    view_->set_subtract(on);
    subtract_ = on;
    show_mode();
  });
  tools->addSeparator();
  // Fixed labels here (the Edit menu's entries name the edit).
  QAction* undo_button = tools->addAction(tr("Undo"), undo_, &QUndoStack::undo);
  QAction* redo_button = tools->addAction(tr("Redo"), undo_, &QUndoStack::redo);
  undo_button->setEnabled(false);
  redo_button->setEnabled(false);
  connect(undo_, &QUndoStack::canUndoChanged, undo_button, &QAction::setEnabled);
  connect(undo_, &QUndoStack::canRedoChanged, redo_button, &QAction::setEnabled);
  tools->addSeparator();
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Open &sample"), this, [this] {
    if (!keep_or_discard()) return;
    const Status s = open_sample();
    if (!s.is_ok()) show_error(tr("Open sample"), qs(s.message()));
  });
  help->addAction(tr("&About"), this, [this] {
    QMessageBox::about(
        this, tr("About XCorr Studio"),
        tr("<b>XCorr Studio %1</b><br>Image cross-correlation and digital image correlation for "
           "microscope image stacks.<br>License: GPL-3.0-or-later.<br>Documentation: the "
           "<a href=\"https://github.com/xcorr-studio/xcorr/tree/main/docs\">docs</a> folder "
           "(docs/gui.md for this window, docs/dic.md for the method), installed under "
           "share/doc/xcorr-studio.")
            .arg(kVersion));
  });
}

void MainWindow::build_docks() {
  // DIC: parameters, Run / Cancel.
  auto* dic_dock = new QDockWidget(tr("DIC"), this);
  auto* dic_widget = new QWidget;
  auto* dic_layout = new QVBoxLayout(dic_widget);
  panel_ = new DicPanel;
  project_.options = panel_->options();
  connect(panel_, &DicPanel::changed, this, [this] {
    project_.options = panel_->options();
    refresh_scale();
    if (source_ && !running() && project_.options.plane() != opened_plane_) {
      // The images read with the other channel; tracks measured on the old one are kept (the
      // drift of a stack is every channel's) and the status bar says which channel they are of.
      const std::vector<Track> tracks = project_.tracks;
      const io::PlaneSelection before = opened_plane_;
      const Status s = reopen_keeping_project();
      if (!s.is_ok()) {
        show_error(tr("Channel"), qs(s.message()));
      } else if (!tracks.empty()) {
        project_.tracks = tracks;
        refresh_tracks();
        message(tr("Showing channel %1, z %2; the %3 track(s) were measured on channel %4, z %5 "
                   "(Track again to measure on this one)")
                    .arg(opened_plane_.channel)
                    .arg(opened_plane_.z)
                    .arg(tracks.size())
                    .arg(before.channel)
                    .arg(before.z));
      }
    }
  });
  {  // the integer guess's variants: auto and every registered one
    std::vector<std::string> methods = {"auto"};
    for (const auto& v : engine::registry().all()) methods.push_back(v->info().name);
    panel_->set_suggestions("method", methods);
  }
  {  // the GPUs: every visible device alone, then all of them (lists such as 0,2 are typed)
    const auto visible = engine::devices();
    const int n = visible.is_ok() ? static_cast<int>(visible.value().size()) : 0;
    std::vector<std::string> gpus;
    for (int d = 0; d < std::max(n, 1); ++d) gpus.push_back(std::to_string(d));
    gpus.push_back("all");
    panel_->set_suggestions("devices", gpus);
    if (const std::string why = engine::gpu_not_used(); !why.empty())
      panel_->set_device_note(tr("GPU not used, DIC runs on the CPU: %1").arg(qs(why)));
  }
  run_button_ = new QPushButton(tr("Run DIC"));
  cancel_button_ = new QPushButton(tr("Cancel"));
  cancel_button_->setEnabled(false);
  dic_layout->addWidget(panel_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_button_);
  buttons->addWidget(cancel_button_);
  dic_layout->addLayout(buttons);
  dic_layout->addStretch(1);
  // Tracking: sub-pixel method and Run; templates come from the Template tool.
  tracking_panel_ = new TrackingPanel;
  connect(tracking_panel_, &TrackingPanel::run_requested, this, [this] { start_tracking(); });
  connect(tracking_panel_, &TrackingPanel::cancel_requested, this, [this] { cancel_run(); });
  auto* modes = new QTabWidget;
  modes->addTab(dic_widget, tr("DIC"));
  modes->addTab(tracking_panel_, tr("Tracking"));
  auto* scroll = new QScrollArea;  // the form scrolls on small screens (1024 x 700)
  scroll->setWidget(modes);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the form fits the dock's width
  scroll->setFrameShape(QFrame::NoFrame);
  dic_dock->setWidget(scroll);
  dic_dock->setMinimumWidth(modes->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width());
  dic_dock->setObjectName("analysis_dock");
  dic_dock->setWindowTitle(tr("Analysis"));
  addDockWidget(Qt::LeftDockWidgetArea, dic_dock);
  connect(run_button_, &QPushButton::clicked, this, [this] { start_dic(); });
  connect(cancel_button_, &QPushButton::clicked, this, [this] { cancel_run(); });
  connect(panel_, &DicPanel::changed, this, [this] {
    refresh_actions();
    refresh_profile_cases();
  });

  // Results: map, trajectories, probed surface.
  auto* res_dock = new QDockWidget(tr("Results"), this);
  res_dock->setObjectName("results_dock");
  results_panel_ = new ResultsPanel;
  connect(results_panel_, &ResultsPanel::display_changed, this, [this] { refresh_results(); });
  connect(view_, &ImageView::probed, this, [this](double x, double y) {
    auto s = probe_surface(x, y);
    if (!s.is_ok()) show_error(tr("Probe"), qs(s.status().message()));
  });
  connect(view_, &ImageView::line_drawn, this, [this](QLineF line) {
    const Status s = profile_along(line);
    if (!s.is_ok()) show_error(tr("Profile"), qs(s.message()));
  });
  connect(results_panel_, &ResultsPanel::tracks_delete_requested, this,
          [this](const std::vector<int>& rows) { remove_tracks(rows); });
  connect(results_panel_, &ResultsPanel::map_hovered, this,
          [this](double x, double y) { (void)point_readout(x, y); });
  connect(results_panel_, &ResultsPanel::profile_export_requested, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export profile"), "profile.csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const Status s = results_panel_->export_profile_csv(path);
    if (!s.is_ok()) show_error(tr("Export profile"), qs(s.message()));
  });
  res_dock->setWidget(results_panel_);
  profile_ = new ProfilePanel;
  profile_dock_ = new QDockWidget(tr("Profiling"), this);
  profile_dock_->setObjectName("profiling_dock");
  auto* profile_scroll = new QScrollArea;  // never forces the window taller than the screen
  profile_scroll->setWidget(profile_);
  profile_scroll->setWidgetResizable(true);
  profile_scroll->setFrameShape(QFrame::NoFrame);
  profile_dock_->setWidget(profile_scroll);
  addDockWidget(Qt::BottomDockWidgetArea, profile_dock_);
  profile_dock_->hide();  // View > Profiling panel
  addDockWidget(Qt::RightDockWidgetArea, res_dock);

  // Frames: the stack's images, the reference first; choose another reference.
  auto* frames_dock = new QDockWidget(tr("Frames"), this);
  frames_dock->setObjectName("frames_dock");
  auto* frames_widget = new QWidget;
  auto* frames_layout = new QVBoxLayout(frames_widget);
  frames_layout->setContentsMargins(2, 2, 2, 2);
  frame_list_ = new QListWidget;
  frame_list_->setToolTip(tr("Click a frame to show it"));
  connect(frame_list_, &QListWidget::currentRowChanged, this, [this](int k) {
    if (k >= 0 && k != current_) show_frame(k);
  });
  auto* as_reference = new QPushButton(tr("Use as reference"));
  as_reference->setToolTip(
      tr("The selected frame becomes the reference; the old reference becomes a frame"));
  connect(as_reference, &QPushButton::clicked, this, [this] {
    const Status s = use_as_reference(frame_list_->currentRow());
    if (!s.is_ok()) show_error(tr("Reference"), qs(s.message()));
  });
  frames_layout->addWidget(frame_list_, 1);
  frames_layout->addWidget(as_reference);
  scale_label_ = new QLabel;  // the stack's scale and where it came from
  scale_label_->setObjectName("scale");
  scale_label_->setWordWrap(true);
  frames_layout->addWidget(scale_label_);
  frames_dock->setWidget(frames_widget);
  addDockWidget(Qt::LeftDockWidgetArea, frames_dock);
  tabifyDockWidget(dic_dock, frames_dock);  // a tab beside Analysis: the form keeps its height
  dic_dock->raise();

  auto* levels_dock = new QDockWidget(tr("Levels"), this);
  levels_dock->setObjectName("levels_dock");
  levels_ = new LevelsBar;
  levels_dock->setWidget(levels_);
  addDockWidget(Qt::LeftDockWidgetArea, levels_dock);
  connect(levels_, &LevelsBar::levels_edited, this,
          [this](double black, double white) { view_->set_levels(black, white); });
  connect(levels_, &LevelsBar::auto_requested, this, [this] {
    view_->set_levels(0, 0);
    show_frame(current_);
  });

  auto* channels_dock = new QDockWidget(tr("Channels"), this);
  channels_dock->setObjectName("channels_dock");
  channels_ = new ChannelsPanel;
  channels_dock->setWidget(channels_);
  addDockWidget(Qt::LeftDockWidgetArea, channels_dock);
  tabifyDockWidget(levels_dock, channels_dock);
  levels_dock->raise();
  connect(channels_, &ChannelsPanel::display_changed, this, [this] { channels_changed(); });
  connect(channels_, &ChannelsPanel::z_requested, this, [this](long z) {
    dic::DicOptions o = panel_->options();
    if (o.z == z) return;
    o.z = static_cast<int>(z);
    panel_->set_options(o);  // the analysis' z-plane: the stack is read again at it
    project_.options = panel_->options();
    const Status s = reopen_keeping_project();
    if (!s.is_ok()) show_error(tr("Z-plane"), qs(s.message()));
  });

  auto* log_dock = new QDockWidget(tr("Log"), this);
  log_dock->setObjectName("log_dock");
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
  tabifyDockWidget(log_dock, profile_dock_);
  log_dock->raise();
  log_dock->hide();  // View > Log
}

void MainWindow::refresh_profile_cases() {
  if (profile_ == nullptr || !source_) return;
  const dic::DicOptions o = panel_->options();
  profile_->set_open_data(source_->shape().rows, source_->shape().cols, frame_count(), o.subset,
                          o.search_radius);
}

void MainWindow::show_profile_panel() {
  profile_dock_->show();
  profile_dock_->raise();
}

void MainWindow::message(const QString& text) {
  statusBar()->showMessage(text, 8000);
  log_->appendPlainText(QDateTime::currentDateTime().toString("HH:mm:ss  ") + text);
}

void MainWindow::show_error(const QString& title, const QString& text, const char* name) {
  log_->appendPlainText(QDateTime::currentDateTime().toString("HH:mm:ss  ") + title + ": " + text);
  statusBar()->showMessage(text, 8000);
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setObjectName(name);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

QString MainWindow::log_text() const {
  return log_->toPlainText();
}

int MainWindow::frame_count() const {
  return source_ ? static_cast<int>(source_->count()) : 0;
}

// The channel and z-plane are a setting of the analysis, not of the window: a stack that lacks
// the ones in use opens at channel 0, z 0 (the DIC form says so), so that viewing channel 1 of one
// hyperstack never stops another stack from opening.
io::PlaneSelection MainWindow::plane_for(const std::string& file) {
  io::PlaneSelection plane = panel_->options().plane();
  // The open stack read again (another channel, a project's settings) keeps what was asked for.
  if (file == project_.stack_path || io::stack_has_plane(file, plane.channel, plane.z))
    return plane;
  auto meta = io::read_stack_metadata(file);
  const io::HyperLayout layout = meta.is_ok() ? meta.value().layout : io::HyperLayout{};
  dic::DicOptions o = panel_->options();
  if (plane.channel >= layout.channels) o.channel = "0";
  if (plane.z >= layout.slices) o.z = 0;
  panel_->blockSignals(true);
  panel_->set_options(o);
  panel_->blockSignals(false);
  project_.options = panel_->options();
  message(tr("'%1' has %2 channel(s) and %3 z-plane(s): showing channel %4, z %5")
              .arg(qs(std::filesystem::path(file).filename().string()))
              .arg(layout.channels)
              .arg(layout.slices)
              .arg(panel_->options().plane().channel)
              .arg(panel_->options().z));
  return panel_->options().plane();
}

Status MainWindow::open_stack(const QString& path, Index reference_page) {
  if (running()) return {ErrorCode::invalid_argument, "a run is in progress"};
  const std::string file = path.toStdString();
  opened_plane_ = plane_for(file);
  auto opened =
      io::LazyStack::open(file, io::LazyStack::kDefaultCacheBytes, opened_plane_, reference_page);
  if (!opened.is_ok()) return opened.status();
  return adopt_source(std::move(opened).value(), path, path.toStdString(), {});
}

Status MainWindow::open_files(const QStringList& files) {
  if (running()) return {ErrorCode::invalid_argument, "a run is in progress"};
  std::vector<std::filesystem::path> paths;
  std::vector<std::string> names;
  for (const QString& f : files) {
    paths.emplace_back(f.toStdString());
    names.push_back(f.toStdString());
  }
  opened_plane_ = plane_for(paths.front().string());
  auto opened = io::LazyStack::open_files(paths, io::LazyStack::kDefaultCacheBytes, opened_plane_);
  if (!opened.is_ok()) return opened.status();
  const QString label = files.size() == 1 ? files[0] : tr("%1 files").arg(files.size());
  return adopt_source(std::move(opened).value(), label, std::string(), std::move(names));
}

std::vector<std::string> MainWindow::stack_files() const {
  if (!project_.files.empty()) return project_.files;
  std::error_code ec;
  const std::filesystem::path stack = project_.stack_path;
  std::vector<std::string> files;
  if (std::filesystem::is_directory(stack, ec)) {
    for (Index k = 0; k < frame_count(); ++k)
      files.push_back((stack / source_->source(k)).string());
  } else if (source_ && frame_count() == 1 && !source_->indexing()) {
    files.push_back(stack.string());  // a single image
  }
  return files;
}

Status MainWindow::reopen_files_keeping_project(const std::vector<std::string>& files) {
  const dic::Roi roi = project_.roi;
  const std::vector<TemplateRect> templates = project_.templates;
  QStringList list;
  for (const std::string& f : files) list << QString::fromStdString(f);
  XCORR_RETURN_IF_ERROR(open_files(list));
  set_roi_internal(roi);
  if (!templates.empty()) set_templates_internal(templates);
  return Status::ok();
}

Status MainWindow::reopen_keeping_project() {
  if (!project_.files.empty()) return reopen_files_keeping_project(project_.files);
  keep_display_ = channel_display();
  const dic::Roi roi = project_.roi;
  const std::vector<TemplateRect> templates = project_.templates;
  const Status opened =
      open_stack(QString::fromStdString(project_.stack_path), project_.reference_page);
  keep_display_.reset();  // used when it opened; never by a later stack
  XCORR_RETURN_IF_ERROR(opened);
  set_roi_internal(roi);
  if (!templates.empty()) set_templates_internal(templates);
  return Status::ok();
}

Status MainWindow::add_frames(const QStringList& added) {
  std::vector<std::string> files = stack_files();
  if (files.empty()) {
    return {ErrorCode::invalid_argument,
            source_ ? "frames are added to a folder, a list of files or a single image; a "
                      "multi-page TIFF holds its own frames"
                    : "open an image first"};
  }
  for (const QString& f : added) files.push_back(f.toStdString());
  return reopen_files_keeping_project(files);
}

Status MainWindow::use_as_reference(int frame) {
  if (frame < 1 || frame >= frame_count())
    return {ErrorCode::invalid_argument, "no frame " + std::to_string(frame)};
  std::vector<std::string> files = stack_files();
  if (files.empty()) {  // a multi-page TIFF: the reference is one of its pages
    const dic::Roi roi = project_.roi;
    const std::vector<TemplateRect> templates = project_.templates;
    XCORR_RETURN_IF_ERROR(
        open_stack(QString::fromStdString(project_.stack_path), source_->page_of(frame)));
    set_roi_internal(roi);
    if (!templates.empty()) set_templates_internal(templates);
    return Status::ok();
  }
  std::rotate(files.begin(), files.begin() + frame, files.begin() + frame + 1);
  return reopen_files_keeping_project(files);
}

Status MainWindow::use_reference_file(const QString& file) {
  std::vector<std::string> files = stack_files();
  if (files.empty())
    return {ErrorCode::unsupported,
            "a multi-page TIFF's reference is one of its pages (Use as reference); a separate "
            "reference file goes with a folder or a list of files"};
  files.insert(files.begin(), file.toStdString());
  return reopen_files_keeping_project(files);
}

Status MainWindow::adopt_source(std::unique_ptr<io::LazyStack> source, const QString& label,
                                const std::string& path, std::vector<std::string> files) {
  // One validation for the window and the command line: the index status names damaged pages
  // (the pages before them are usable), frames of files must have the reference's size.
  const Status indexed = source->wait_indexed(300);  // small stacks are indexed by then
  XCORR_RETURN_IF_ERROR(source->check_frame_sizes());
  source_ = std::move(source);
  reference_ = Stack<float>();
  frames_ = Stack<float>();
  std::vector<std::string> frames;
  for (Index k = 1; k < source_->count(); ++k) frames.push_back(source_->source(k));
  project_.adopt_stack(path, std::move(files), source_->source(0), std::move(frames),
                       source_->reference_page());
  project_.file_scale = source_->metadata().scale;  // the reference's metadata
  for (Index k = 1; k < source_->count(); ++k)
    project_.frame_steps.push_back(static_cast<double>(source_->time_of(k) - source_->time_of(0)));
  refresh_scale();
  undo_->clear();
  play_->setChecked(false);
  // Nothing of the stack before stays: its results' plots and captions, the marks, the engine.
  results_panel_->clear();
  engine_label_->clear();
  cursor_point_ = cursor_at_ = probe_point_ = QPointF(qQNaN(), qQNaN());
  profile_line_ = QLineF();
  view_->set_marks(cursor_point_, probe_point_, profile_line_);
  set_roi_internal({});
  slider_->blockSignals(true);
  slider_->setRange(0, frame_count() - 1);
  slider_->setValue(0);
  slider_->blockSignals(false);
  view_->set_levels(0, 0);  // auto levels for every new stack
  view_->reset_levels();
  open_channels();
  refresh_profile_cases();
  show_frame(0);
  view_->fit();
  refresh_frame_list();
  setWindowTitle("XCorr Studio - " + label);
  if (source_->indexing()) index_timer_->start();
  message(tr("%1: %2 of %3 x %4 px, %5")
              .arg(label)
              .arg(frame_count() == 1 ? tr("one image") : tr("%1 images").arg(frame_count()))
              .arg(source_->shape().cols)
              .arg(source_->shape().rows)
              .arg(io::to_string(source_->pixel_type())));
  if (!source_->indexing() && !indexed.is_ok())
    show_error(tr("Damaged stack"), qs(indexed.message()), "open_problem");
  return Status::ok();
}

void MainWindow::open_channels() {
  const io::HyperLayout layout = source_->metadata().layout;
  channel_stacks_.clear();
  channel_levels_.clear();
  shown_channel_ = 0;
  const long analysed = opened_plane_.channel;
  if (layout.channels > 1 && !project_.stack_path.empty() && !opened_plane_.all_pages) {
    for (long c = 0; c < layout.channels; ++c) {
      if (c == analysed) {
        channel_stacks_.push_back(source_);
        continue;
      }
      io::PlaneSelection plane = opened_plane_;
      plane.channel = c;
      auto opened = io::LazyStack::open(project_.stack_path, io::LazyStack::kDefaultCacheBytes / 4,
                                        plane, project_.reference_page);
      if (!opened.is_ok() || opened.value()->count() != source_->count()) {
        message(tr("Channel %1 cannot be shown: %2")
                    .arg(c + 1)
                    .arg(opened.is_ok() ? tr("another number of frames")
                                        : qs(opened.status().message())));
        channel_stacks_.clear();
        break;
      }
      channel_stacks_.push_back(std::move(opened).value());
    }
  }
  const long channels = channel_stacks_.empty() ? 1 : layout.channels;
  channel_levels_.assign(static_cast<std::size_t>(channels), Levels{});
  shown_channel_ = channel_stacks_.empty() ? 0 : analysed;
  channels_->set_stack_layout(channels, layout.slices, opened_plane_.z, shown_channel_);
  const std::optional<ChannelDisplay> kept = std::exchange(keep_display_, std::nullopt);
  if (!kept || kept->luts.size() != static_cast<std::size_t>(channels)) return;
  channels_->blockSignals(true);  // the stack's first frame is shown next
  for (long c = 0; c < channels; ++c) {
    channels_->set_lut(c, kept->luts[static_cast<std::size_t>(c)]);
    channels_->set_visible(c, kept->visible[static_cast<std::size_t>(c)]);
  }
  channels_->set_composite(kept->composite);
  channels_->blockSignals(false);
  channel_levels_ = kept->levels;
  const Levels& shown = channel_levels_[static_cast<std::size_t>(shown_channel_)];
  if (!shown.automatic) view_->set_levels(shown.black, shown.white);
}

MainWindow::ChannelDisplay MainWindow::channel_display() {
  ChannelDisplay d;
  if (channel_levels_.empty()) return d;
  channel_levels_[static_cast<std::size_t>(shown_channel_)] = {view_->black(), view_->white(),
                                                               view_->auto_levels()};
  d.levels = channel_levels_;
  for (long c = 0; c < channels_->channels(); ++c) {
    d.luts.push_back(channels_->lut(c));
    d.visible.push_back(channels_->visible(c));
  }
  d.composite = channels_->composite();
  return d;
}

void MainWindow::channels_changed() {
  // The active channel's levels come from the view; the new active channel's go into it.
  const long active = std::clamp(channels_->active(), 0L, channels_->channels() - 1);
  if (active != shown_channel_ && !channel_levels_.empty()) {
    channel_levels_[static_cast<std::size_t>(shown_channel_)] = {view_->black(), view_->white(),
                                                                 view_->auto_levels()};
    const Levels next = channel_levels_[static_cast<std::size_t>(active)];
    shown_channel_ = active;
    if (next.automatic) {
      view_->set_levels(0, 0);
      view_->reset_levels();
    } else {
      view_->set_levels(next.black, next.white);
    }
  }
  if (source_) show_frame(current_);
}

std::vector<ImageView::ChannelLayer> MainWindow::other_channels(int k) {
  std::vector<ImageView::ChannelLayer> layers;
  if (channels_->composite()) {
    for (long c = 0; c < static_cast<long>(channel_stacks_.size()); ++c) {
      if (c == shown_channel_ || !channels_->visible(c)) continue;
      auto frame = channel_stacks_[static_cast<std::size_t>(c)]->frame(k);
      if (!frame.is_ok()) continue;
      const MatrixView<const float> m = (*frame.value())[0];
      ImageView::ChannelLayer layer;
      layer.pixels.resize(static_cast<std::size_t>(m.rows * m.cols));
      for (Index y = 0; y < m.rows; ++y)
        std::copy(m.row(y), m.row(y) + m.cols, layer.pixels.begin() + y * m.cols);
      Levels& levels = channel_levels_[static_cast<std::size_t>(c)];
      if (levels.automatic && !(levels.black < levels.white))
        levels = percentile_levels(layer.pixels);  // auto: from the first frame shown
      layer.lut = channels_->lut(c);
      layer.black = levels.black;
      layer.white = levels.white;
      layers.push_back(std::move(layer));
    }
  }
  return layers;
}

void MainWindow::refresh_frame_list() {
  if (frame_list_ == nullptr) return;
  frame_list_->blockSignals(true);
  frame_list_->clear();
  for (Index k = 0; source_ && k < frame_count(); ++k) {
    frame_list_->addItem(k == 0 ? tr("reference: %1").arg(qs(source_->source(0)))
                                : tr("%1: %2").arg(k).arg(qs(source_->source(k))));
  }
  frame_list_->setCurrentRow(current_);
  frame_list_->blockSignals(false);
}

Status MainWindow::open_sample() {
  // Installed (the .deb, the bundle): share/xcorr-studio/sample beside the program's bin folder;
  // in a build tree, the source tree's resources/sample.
  QString stack =
      QCoreApplication::applicationDirPath() + "/../share/xcorr-studio/sample/dic_stack.tif";
  if (!QFileInfo::exists(stack)) stack = QString(XCORR_SAMPLE_DIR) + "/dic_stack.tif";
  XCORR_RETURN_IF_ERROR(open_stack(stack));
  add_roi_shape(dic::parse_roi_shape("ellipse:127.5,127.5,110,100").value());
  return Status::ok();
}

void MainWindow::set_roi_internal(const dic::Roi& roi) {
  project_.roi = roi;
  view_->set_roi(project_.roi);
}

void MainWindow::set_roi_for_tests(const dic::Roi& roi) {
  set_roi_internal(roi);
}

QString MainWindow::extent_text(double x, double y, double w, double h) const {
  QString t = tr("%1 x %2 px at (%3, %4)").arg(w, 0, 'f', 1).arg(h, 0, 'f', 1).arg(x).arg(y);
  const io::ImageScale scale = project_.scale();
  if (scale.has_length()) {
    t += tr(" = %1 x %2 %3 at (%4, %5)")
             .arg(scale.to_unit_x(w), 0, 'g', 4)
             .arg(scale.to_unit_y(h), 0, 'g', 4)
             .arg(qs(scale.unit))
             .arg(scale.to_unit_x(x), 0, 'g', 4)
             .arg(scale.to_unit_y(y), 0, 'g', 4);
  }
  return t;
}

void MainWindow::add_roi_shape(const dic::RoiShape& s) {
  dic::Roi after = project_.roi;
  after.shapes.push_back(s);
  undo_->push(new RoiCommand(tr("Add %1").arg(shape_name(s)), project_.roi, after,
                             [this](const dic::Roi& r) { set_roi_internal(r); }));
  const dic::RoiBounds b = dic::bounds(s);
  message(tr("Added %1: %2").arg(shape_name(s), extent_text(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0)));
}

void MainWindow::clear_roi() {
  undo_->push(new RoiCommand(tr("Clear ROI"), project_.roi, {},
                             [this](const dic::Roi& r) { set_roi_internal(r); }));
}

bool MainWindow::stack_ready() {
  if (!source_) {
    message(tr("Open a stack first (File > Open stack, or Help > Open sample)"));
    return false;
  }
  if (source_->indexing()) {
    message(tr("Indexing the stack..."));
    (void)source_->wait_indexed();
  }
  if (frame_count() < 2) {  // one image: ask for the deformed one(s)
    show_error(tr("A second image is needed"),
               tr("%1 is one image: analysis compares the reference with later frames. Choose "
                  "the deformed image(s) (File > Add frames...).")
                   .arg(qs(source_->source(0))),
               "needs_frames");
    if (!stack_files().empty()) {
      auto* ask = new QFileDialog(this, tr("Add frames (deformed images)"), {},
                                  tr("Images (*.tif *.tiff *.png *.bmp *.jpg *.jpeg)"));
      ask->setObjectName("ask_frames");
      ask->setFileMode(QFileDialog::ExistingFiles);
      ask->setAttribute(Qt::WA_DeleteOnClose);
      connect(ask, &QFileDialog::filesSelected, this, [this](const QStringList& files) {
        const Status s = add_frames(files);
        if (!s.is_ok()) show_error(tr("Add frames"), qs(s.message()));
      });
      ask->open();
    }
    return false;
  }
  return true;
}

bool MainWindow::load_frames_for_run() {
  if (!stack_ready()) return false;
  if (frames_.count() == 0) {  // decode the whole stack once, for runs
    auto ref = source_->frames(0, 1);
    auto fr = source_->frames(1, source_->count() - 1);
    if (!ref.is_ok() || !fr.is_ok()) {
      message(qs((ref.is_ok() ? fr.status() : ref.status()).message()));
      return false;
    }
    reference_ = std::move(ref).value();
    frames_ = std::move(fr).value();
  }
  return true;
}

bool MainWindow::start_dic() {
  if (running() || !stack_ready()) return false;
  // The project as a job without an output: batch::run_job runs it in memory on the open
  // stack, the same runner as `xcorr dic` and `xcorr run`.
  const dic::DicJob job = project();
  if (const Status s = job.options.check(); !s.is_ok()) {
    message(qs(s.message()));
    return false;
  }
  auto out = std::make_shared<DicRun>();
  out->options = job.options;
  out->roi = job.roi;
  dic_out_ = out;
  const std::shared_ptr<io::LazyStack> stack = source_;
  return start_run(
      {tr("DIC"),
       [](double done, double total) {
         return tr("frame %1 / %2").arg(done, 0, 'f', 1).arg(total);
       },
       [this] { finish_dic(); }},
      [out, job, stack](const JobProgress& progress) {
        auto report = batch::run_job(
            job, engine::make_dic_registrar,
            [&](double done, Index total) { return progress(done, static_cast<double>(total)); },
            [&](const dic::DicResult& r) { out->result = r; }, stack);
        if (!report.is_ok()) return report.status();
        out->report = std::move(report).value();
        return Status::ok();
      },
      tr("DIC running..."));
}

bool MainWindow::start_run(RunController::Run run, Job work, const QString& text) {
  if (!runs_->start(std::move(run), std::move(work))) return false;
  tracking_panel_->set_run_enabled(false);
  refresh_actions();
  progress_->setVisible(true);
  progress_->setRange(0, 1000);  // per mille of the run (JobRunner::progress)
  progress_->setValue(0);
  progress_->setFormat(tr("starting"));
  eta_label_->clear();
  message(text);
  return true;
}

void MainWindow::cancel_run() {
  runs_->cancel();
}

bool MainWindow::start_tracking() {
  if (running() || !load_frames_for_run()) return false;
  if (project_.templates.empty()) {
    message(tr("Draw a template first (Template tool)"));
    return false;
  }
  TrackingOptions o;
  o.subpixel = tracking_panel_->subpixel();
  o.accuracy = tracking_panel_->accuracy();
  auto out = std::make_shared<std::vector<Track>>();
  tracks_out_ = out;
  auto ref = std::make_shared<Stack<float>>(reference_);
  auto fr = std::make_shared<Stack<float>>(frames_);
  const std::vector<TemplateRect> templates = project_.templates;
  return start_run(
      {tr("Tracking"),
       [](double done, double total) {
         return tr("%1 / %2 pairs").arg(done, 0, 'f', 0).arg(total);
       },
       [this] { finish_tracking(); }},
      [out, ref, fr, templates, o](const JobProgress& progress) {
        auto r = track_templates(engine::registry(), (*ref)[0], fr->view(), templates, o,
                                 [&](Index done, Index total) { return progress(done, total); });
        if (!r.is_ok()) return r.status();
        *out = std::move(r).value();
        return Status::ok();
      },
      tr("Tracking %1 template(s)...").arg(project_.templates.size()));
}

void MainWindow::open_register_dialog() {
  if (running()) return message(tr("A run is in progress"));
  if (!source_ || project_.stack_path.empty()) {
    show_error(tr("Register stack"),
               tr("Open a multi-page TIFF or a folder first: registration reads a stack from "
                  "its file"),
               "register_needs_stack");
    return;
  }
  reg::RegisterOptions o;  // the stack as the window reads it: channel, z-plane, scale
  o.channel = project_.options.channel;
  o.z = project_.options.z;
  o.pixel_size = project_.options.pixel_size;
  o.frame_interval = project_.options.frame_interval;
  std::optional<TemplateRect> region;
  if (!project_.templates.empty()) region = project_.templates.back();
  auto* d = new RegisterDialog(project_.stack_path, region, o, this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  connect(d, &QDialog::accepted, this, [this, d] { start_registration(d->job()); });
  d->open();
}

bool MainWindow::apply_drift_table(const QString& table, const QString& out) {
  reg::RegisterJob job;  // the open stack, every channel and z-plane moved by the table
  job.stack = project_.stack_path;
  job.apply = table.toStdString();
  job.out = out.toStdString();
  job.options.channel = project_.options.channel;
  job.options.z = project_.options.z;
  job.options.pixel_size = project_.options.pixel_size;
  job.options.frame_interval = project_.options.frame_interval;
  return start_registration(job);
}

bool MainWindow::start_registration(const reg::RegisterJob& job) {
  if (running()) return false;
  if (const Status s = job.check(); !s.is_ok()) {
    show_error(tr("Register stack"), qs(s.message()), "run_error");
    return false;
  }
  auto out = std::make_shared<RegisterRun>();
  out->job = job;
  register_out_ = out;
  return start_run(
      {tr("Registration"), {}, [this] { finish_registration(); }},
      [out](const JobProgress& progress) {
        auto r = reg::register_stack(out->job, engine::register_engines(), progress);
        if (!r.is_ok()) return r.status();
        out->report = std::move(r).value();
        return Status::ok();
      },
      tr("Registering the stack..."));
}

void MainWindow::run_ending(const QString& name, const Status& status) {
  tracking_panel_->set_run_enabled(true);
  refresh_actions();
  progress_->setVisible(false);
  eta_label_->clear();
  if (status.is_ok()) return;  // the run's completion follows
  message(status.code() == ErrorCode::cancelled ? tr("%1 cancelled").arg(name)
                                                : qs(status.message()));
  if (status.code() != ErrorCode::cancelled) show_error(name, qs(status.message()), "run_error");
}

void MainWindow::finish_registration() {
  const RegisterRun& r = *register_out_;
  if (!r.job.out.empty()) {  // step through the corrected stack, with the drift plot, as shown
    keep_display_ = channel_display();
    const Status s = open_stack(qs(r.job.out));
    keep_display_.reset();
    if (!s.is_ok()) show_error(tr("Registration"), qs(s.message()), "run_error");
  }
  results_panel_->show_drift(r.report.drift, r.report.scale);
  QString failed;
  for (const reg::DriftRow& d : r.report.drift)
    if (!d.failed.empty()) failed += tr("\nframe %1: %2").arg(d.frame).arg(qs(d.failed));
  message(tr("Registration done: %1 frames; wrote %2")
              .arg(r.report.drift.size() - static_cast<std::size_t>(r.report.failed))
              .arg(qs(r.job.out.empty() ? r.job.drift : r.job.out + ", " + r.job.drift)));
  if (!failed.isEmpty())
    show_error(
        tr("Registration"),
        tr("%1 frame(s) could not be used and are left out:%2").arg(r.report.failed).arg(failed),
        "run_error");
  results_panel_->setCurrentIndex(results_panel_->count() - 1);
}

void MainWindow::finish_tracking() {
  project_.tracks = *tracks_out_;
  unsaved_ = true;
  message(tr("Tracking done: %1 template(s) in %2 frames")
              .arg(project_.tracks.size())
              .arg(frame_count()));
  refresh_tracks();
}

void MainWindow::finish_dic() {
  // The results with the settings they ran with (a failed or cancelled run keeps the last ones).
  project_.results = dic_out_->result;
  project_.ran_options = dic_out_->options;
  project_.ran_roi = dic_out_->roi;
  project_.failed = dic_out_->report.failed;
  unsaved_ = true;
  engine_label_->setText(
      tr("ran on %1 (integer guess: %2)")
          .arg(qs(project_.results->device), qs(project_.results->guess_variant)));
  const std::vector<batch::FrameFailure>& failed = project_.failed;
  if (failed.empty()) {
    message(tr("DIC done: %1 frames").arg(project_.results->frames.size()));
  } else {  // the other frames are kept; the failed ones are named with their reason
    QString list;
    for (const batch::FrameFailure& x : failed)
      list += tr("\nframe %1 (%2): %3").arg(x.frame).arg(qs(x.source), qs(x.reason));
    message(tr("DIC done: %1 frames, %2 failed")
                .arg(project_.results->frames.size())
                .arg(failed.size()));
    // Not modal-blocking: the results are already there to look at.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("DIC"),
                                tr("%1 frame(s) could not be registered and have no results:%2")
                                    .arg(failed.size())
                                    .arg(list),
                                QMessageBox::Ok, this);
    box->setObjectName("failed_frames");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  show_frame(std::max(1, current_));
}

void MainWindow::add_template(const TemplateRect& r) {
  std::vector<TemplateRect> after = project_.templates;
  after.push_back(r);
  const std::vector<TemplateRect> before = project_.templates;
  undo_->push(new LambdaCommand(
      tr("Add template"), [this, before] { set_templates_internal(before); },
      [this, after] { set_templates_internal(after); }));
  message(tr("Added template %1: %2")
              .arg(after.size())
              .arg(extent_text(static_cast<double>(r.x), static_cast<double>(r.y),
                               static_cast<double>(r.width), static_cast<double>(r.height))));
}

void MainWindow::remove_tracks(const std::vector<int>& rows) {
  struct State {
    std::vector<TemplateRect> templates;
    std::vector<Track> tracks;
  };
  const State before{project_.templates, project_.tracks};
  State after;
  for (std::size_t k = 0; k < before.templates.size(); ++k) {
    if (std::find(rows.begin(), rows.end(), static_cast<int>(k)) != rows.end()) continue;
    after.templates.push_back(before.templates[k]);
    if (k < before.tracks.size()) after.tracks.push_back(before.tracks[k]);
  }
  const auto apply = [this](const State& s) {
    project_.templates = s.templates;
    project_.tracks = s.tracks;
    refresh_tracks();
  };
  undo_->push(new LambdaCommand(
      tr("Delete %1 track(s)").arg(rows.size()), [apply, before] { apply(before); },
      [apply, after] { apply(after); }));
  message(tr("Deleted %1 track(s) and their templates (Edit > Undo brings them back)")
              .arg(rows.size()));
}

void MainWindow::set_templates_internal(const std::vector<TemplateRect>& t) {
  project_.templates = t;
  project_.tracks.clear();
  refresh_tracks();
}

void MainWindow::refresh_tracks() {
  view_->set_templates(project_.templates, project_.tracks.empty() ? nullptr : &project_.tracks,
                       current_);
  results_panel_->show_tracks(project_.tracks);
  refresh_actions();
}

Result<Stack<float>> MainWindow::probe_surface(double x, double y) {
  if (!source_) return Status{ErrorCode::invalid_argument, "open a stack first"};
  const dic::DicOptions o = panel_->options();
  const auto S = static_cast<Index>(o.subset), R = static_cast<Index>(o.search_radius);
  const Index h = S / 2, cx = std::lround(x), cy = std::lround(y);
  const Shape img = source_->shape();
  if (cx - h - R < 0 || cy - h - R < 0 || cx + h + R >= img.cols || cy + h + R >= img.rows) {
    return Status{ErrorCode::invalid_argument,
                  "the subset and its search range (" + std::to_string(S + 2 * R) +
                      " px) do not fit in the image around that point"};
  }
  auto ref = source_->frame(0);
  auto cur = source_->frame(std::max(1, current_));
  if (!ref.is_ok()) return ref.status();
  if (!cur.is_ok()) return cur.status();
  const MatrixView<const float> a = (*ref.value())[0], b = (*cur.value())[0];
  const StackView<const float> tmpl{
      a.data + (cy - h) * a.row_stride + (cx - h), S, S, 1, a.row_stride, 0};
  const StackView<const float> win{b.data + (cy - h - R) * b.row_stride + (cx - h - R),
                                   S + 2 * R,
                                   S + 2 * R,
                                   1,
                                   b.row_stride,
                                   0};
  auto out = correlate(engine::registry(),
                       {{Form::one_to_one, Mode::valid, Normalization::zncc}, tmpl, win});
  if (!out.is_ok()) return out.status();
  const Stack<float>& m = out.value().result;
  results_panel_->show_surface(m[0], static_cast<int>(R), static_cast<double>(cx),
                               static_cast<double>(cy));
  probe_point_ = QPointF(static_cast<double>(cx), static_cast<double>(cy));
  view_->set_marks(cursor_point_, probe_point_, profile_line_);
  refresh_actions();
  message(tr("ZNCC surface at (%1, %2), frame %3").arg(cx).arg(cy).arg(std::max(1, current_)));
  return m;
}

Status MainWindow::export_tracks_csv(const QString& path) {
  return confirm(project_.export_tracks_csv(path.toStdString()),
                 tr("Exported %1 track(s) to").arg(project_.tracks.size()), path);
}

void MainWindow::show_frame(int k) {
  if (!source_) return;
  current_ = std::clamp(k, 0, frame_count() - 1);
  io::LazyStack& shown = channel_stacks_.empty()
                             ? *source_
                             : *channel_stacks_[static_cast<std::size_t>(shown_channel_)];
  auto frame = shown.frame(current_);
  if (!frame.is_ok()) {
    message(qs(frame.status().message()));
    return;
  }
  view_->set_frame((*frame.value())[0],
                   channel_stacks_.empty() ? Lut::grays : channels_->lut(shown_channel_),
                   other_channels(current_));
  levels_->show_frame((*frame.value())[0], view_->black(), view_->white(), view_->auto_levels());
  if (frame_list_->currentRow() != current_) {
    frame_list_->blockSignals(true);
    frame_list_->setCurrentRow(current_);
    frame_list_->blockSignals(false);
  }
  frame_label_->setText(current_ == 0 ? tr("reference (%1)").arg(qs(project_.reference_name))
                                      : tr("frame %1/%2 (%3)")
                                            .arg(current_)
                                            .arg(frame_count() - 1)
                                            .arg(qs(project_.frame_names[current_ - 1])));
  if (const long missing = view_->missing_pixels(); missing > 0) {
    const QString note =
        tr("%1 missing pixel(s) (NaN or Inf) shown in magenta: not measured").arg(missing);
    frame_label_->setText(frame_label_->text() + QStringLiteral(" · ") + note);
    statusBar()->showMessage(note, 8000);
  }
  if (slider_->value() != current_) {
    slider_->blockSignals(true);
    slider_->setValue(current_);
    slider_->blockSignals(false);
  }
  refresh_results();
  refresh_annotations();
  // The data cursor reads the same place in this frame (or nothing where it has no results).
  if (!std::isnan(cursor_at_.x())) (void)point_readout(cursor_at_.x(), cursor_at_.y());
  view_->set_templates(project_.templates, project_.tracks.empty() ? nullptr : &project_.tracks,
                       current_);
}

void MainWindow::refresh_annotations() {
  if (scale_bar_ == nullptr || !source_) return;
  const io::ImageScale scale = project_.scale();
  view_->set_annotations(scale, scale.has_time() ? project_.frame_time_s(current_) : qQNaN(),
                         scale_bar_->isChecked(), time_stamp_->isChecked());
}

void MainWindow::refresh_scale() {
  refresh_annotations();
  if (results_panel_ == nullptr || scale_label_ == nullptr) return;  // while the window is built
  const io::ImageScale scale = project_.scale();
  std::vector<double> times;
  if (scale.has_time() && source_) {
    for (Index k = 0; k < source_->count(); ++k) times.push_back(project_.frame_time_s(k));
  }
  results_panel_->set_scale(scale, std::move(times));
  scale_label_->setText(tr("Scale: %1. Set or override it in Analysis: Pixel size, Frame "
                           "interval.")
                            .arg(qs(io::describe(scale))));
}

void MainWindow::refresh_results() {
  const dic::FrameResult* shown = project_.result_of(current_);
  // The map first: it resolves a locked range over every frame, which the overlay then uses.
  results_panel_->show_map(
      shown, shown != nullptr ? project_.results->grid : dic::Grid{},
      project_.results ? project_.results->frames : std::vector<dic::FrameResult>{});
  view_->set_results(shown, results_panel_->shown_style(), project_.ran_options.step);
  refresh_actions();
}

QString MainWindow::point_readout(double x, double y) {
  cursor_at_ = QPointF(x, y);
  const dic::FrameResult* shown = project_.result_of(current_);
  const long k = shown == nullptr ? -1
                                  : nearest_point(shown->points, project_.results->grid.cols,
                                                  project_.ran_options.step, x, y);
  QString text;
  QPointF mark(qQNaN(), qQNaN());
  if (k >= 0) {
    const dic::PointResult& p = shown->points[static_cast<std::size_t>(k)];
    text = tr("frame %1: %2").arg(current_).arg(point_text(p, project_.scale()));
    mark = QPointF(p.x, p.y);
  }
  results_panel_->set_cursor_text(text);
  cursor_point_ = mark;
  view_->set_marks(cursor_point_, probe_point_, profile_line_);
  return text;
}

Status MainWindow::profile_along(QLineF line) {
  if (!source_) return {ErrorCode::invalid_argument, "open a stack first"};
  // DIC quantities where the frame has results, and every channel's intensity.
  const dic::FrameResult* shown = project_.result_of(current_);
  std::vector<ProfileSample> samples =
      shown != nullptr
          ? sample_profile(shown->points, project_.results->grid.cols, project_.ran_options.step,
                           line.x1(), line.y1(), line.x2(), line.y2())
          : sample_line(line.x1(), line.y1(), line.x2(), line.y2());
  std::vector<ProfileChannel> channels;
  const long n = channel_stacks_.empty() ? 1 : static_cast<long>(channel_stacks_.size());
  for (long c = 0; c < n; ++c) {
    io::LazyStack& stack =
        channel_stacks_.empty() ? *source_ : *channel_stacks_[static_cast<std::size_t>(c)];
    auto frame = stack.frame(current_);
    if (!frame.is_ok()) return frame.status();
    for (ProfileSample& q : samples) q.intensity.push_back(bilinear((*frame.value())[0], q.x, q.y));
    const QColor colour = QColor::fromRgb(lut_rgb(channels_->lut(c), 0.85));
    channels.push_back({n == 1 ? QString("intensity") : QString("intensity_%1").arg(c + 1),
                        channels_->lut(c) == Lut::grays ? QColor(60, 60, 60) : colour});
  }
  profile_line_ = line;
  view_->set_marks(cursor_point_, probe_point_, profile_line_);
  const QString name = current_ == 0
                           ? qs(project_.reference_name)
                           : qs(project_.frame_names[static_cast<std::size_t>(current_ - 1)]);
  results_panel_->show_profile(std::move(samples),
                               tr("frame %1 (%2), line from (%3, %4) to (%5, %6) px")
                                   .arg(current_)
                                   .arg(name)
                                   .arg(line.x1(), 0, 'f', 1)
                                   .arg(line.y1(), 0, 'f', 1)
                                   .arg(line.x2(), 0, 'f', 1)
                                   .arg(line.y2(), 0, 'f', 1),
                               std::move(channels));
  refresh_actions();
  return Status::ok();
}

void MainWindow::show_mode() {
  mode_label_->setText(subtract_ ? tr("%1 - SUBTRACT").arg(tool_name_) : tool_name_);
  mode_label_->setStyleSheet(subtract_ ? "color: white; background: #c03030; padding: 0 4px"
                                       : QString());
}

QString MainWindow::stack_blocker() const {
  if (running()) return tr("a run is in progress");
  if (!source_) return tr("open a stack first (File > Open stack, or Help > Open sample)");
  if (source_->indexing()) return tr("the stack is being indexed");
  if (frame_count() < 2)
    return tr("the stack is one image: add the deformed frames (File > Add frames)");
  return {};
}

QString MainWindow::dic_blocker() const {
  if (const QString why = stack_blocker(); !why.isEmpty()) return why;
  if (const Status s = panel_->options().check(); !s.is_ok()) return qs(s.message());
  return {};
}

QString MainWindow::tracking_blocker() const {
  if (const QString why = stack_blocker(); !why.isEmpty()) return why;
  if (project_.templates.empty()) return tr("draw a template first (Template tool)");
  return {};
}

QString MainWindow::register_blocker() const {
  if (const QString why = stack_blocker(); !why.isEmpty()) return why;
  if (project_.stack_path.empty())
    return tr("registration reads a stack from its file: open a multi-page TIFF or a folder");
  return {};
}

void MainWindow::refresh_actions() {
  if (run_dic_ != nullptr) {
    // Each run's action (and the form's button) is enabled only when it can start; the tooltip
    // says what it does, its key, and otherwise why not.
    const auto set = [](QAction* a, const QString& does, const QString& why_not) {
      a->setEnabled(why_not.isEmpty());
      const QString key = a->shortcut().toString(QKeySequence::NativeText);
      a->setToolTip(why_not.isEmpty() ? tr("%1 (%2)").arg(does, key)
                                      : tr("%1 (%2): not now, %3").arg(does, key, why_not));
    };
    set(run_dic_, tr("Run DIC on the open stack with the Analysis form's settings"), dic_blocker());
    set(run_tracking_, tr("Track the templates through the stack"), tracking_blocker());
    set(run_register_, tr("Measure and correct the stack's drift"), register_blocker());
    set(cancel_action_, tr("Cancel the run in progress"),
        running() ? QString() : tr("nothing is running"));
    run_button_->setEnabled(run_dic_->isEnabled());
    run_button_->setToolTip(run_dic_->toolTip());
    cancel_button_->setEnabled(running());
  }
  if (export_csv_ == nullptr) return;
  const bool results = project_.results.has_value();
  export_csv_->setEnabled(results);
  export_frame_->setEnabled(project_.result_of(current_) != nullptr);
  export_tracks_->setEnabled(!project_.tracks.empty());
  export_view_->setEnabled(source_ != nullptr);
  export_movie_->setEnabled(source_ != nullptr && frame_count() > 1);
  export_plot_->setEnabled(results || !project_.tracks.empty() || results_panel_->plot_has_data());
}

Status MainWindow::export_csv(const QString& path, bool per_frame) {
  return confirm(project_.export_csv(path.toStdString(), per_frame),
                 tr("Exported the displacements of %1 frame(s) to")
                     .arg(project_.results ? project_.results->frames.size() : 0),
                 path);
}

Status MainWindow::export_frame_csv(const QString& path, int frame) {
  return confirm(project_.export_frame_csv(path.toStdString(), frame),
                 tr("Exported frame %1 to").arg(frame), path);
}

Status MainWindow::export_view(const QString& path, int width) {
  if (!source_) return {ErrorCode::invalid_argument, "nothing to export: open a stack first"};
  if (width < 16 || width > 20000)
    return {ErrorCode::invalid_argument, "the figure's width must be 16-20000 px"};
  const QImage figure = view_->render_figure(width);
  const bool tiff =
      path.endsWith(".tif", Qt::CaseInsensitive) || path.endsWith(".tiff", Qt::CaseInsensitive);
  if (!tiff && !path.endsWith(".png", Qt::CaseInsensitive))
    return {ErrorCode::invalid_argument, "a figure is .png or .tif: '" + path.toStdString() + "'"};
  const Status written =
      io::write_atomically(path.toStdString(), [&](const std::filesystem::path& tmp) -> Status {
        if (!tiff)
          return figure.save(QString::fromStdString(tmp.string()), "PNG")
                     ? Status::ok()
                     : Status{ErrorCode::io_error, "cannot write '" + path.toStdString() + "'"};
        const QImage rgb = figure.convertToFormat(QImage::Format_RGB888);
        std::vector<std::uint8_t> values;
        values.reserve(static_cast<std::size_t>(rgb.width()) * rgb.height() * 3);
        for (int y = 0; y < rgb.height(); ++y)
          values.insert(values.end(), rgb.constScanLine(y), rgb.constScanLine(y) + 3 * rgb.width());
        return io::write_rgb_tiff(tmp, {rgb.height(), rgb.width()}, values);
      });
  return confirm(written,
                 tr("Exported the view (%1 x %2 px) to").arg(figure.width()).arg(figure.height()),
                 path);
}

Status MainWindow::export_movie(const QString& path, int width, double fps) {
  if (!source_) return {ErrorCode::invalid_argument, "nothing to export: open a stack first"};
  if (width < 16 || width > 4000)
    return {ErrorCode::invalid_argument, "the movie's width must be 16-4000 px"};
  if (running()) return {ErrorCode::invalid_argument, "a run is in progress"};
  const int shown = current_;
  const ColourRange range = results_panel_->style().range;
  const bool hold = range.automatic && !range.locked && project_.results.has_value();
  if (hold) results_panel_->set_locked_range();
  std::vector<QImage> frames;
  for (int k = 0; k < frame_count(); ++k) {
    show_frame(k);
    frames.push_back(view_->render_figure(width));
  }
  if (hold) results_panel_->set_auto_range();
  show_frame(shown);
  const Status written = write_gif(path, frames, fps);
  return confirm(written,
                 tr("Exported a movie of %1 frames (%2 x %3 px, %4 fps, GIF) to")
                     .arg(frames.size())
                     .arg(frames.front().width())
                     .arg(frames.front().height())
                     .arg(fps),
                 path);
}

Status MainWindow::export_plot(const QString& path, int width, int height) {
  const MapStyle style = results_panel_->style();
  QString what;
  switch (results_panel_->currentIndex()) {
    case 0:
      what = tr("%1, frame %2").arg(QString::fromStdString(to_string(style.field))).arg(current_);
      break;
    case 1:
      what = tr("profile, frame %1").arg(current_);
      break;
    case 2:
      what = tr("trajectories");
      break;
    case 3:
      what = tr("ZNCC surface, frame %1").arg(std::max(1, current_));
      break;
    default:
      what = tr("drift");
      break;
  }
  const QString file = current_ >= 1 && current_ <= static_cast<int>(project_.frame_names.size())
                           ? qs(project_.frame_names[static_cast<std::size_t>(current_ - 1)])
                           : qs(project_.reference_name);
  return confirm(results_panel_->export_plot(path, what + " (" + file + ")", width, height),
                 tr("Exported the plot (%1 x %2 px) to").arg(width).arg(height), path);
}

}  // namespace xcorr::ui
