// The main window of xcorr-studio: image stack viewer with a frame slider, ROI drawing with
// undo/redo, the DIC parameters panel, runs off the GUI thread with progress/ETA/Cancel, results
// as an overlay and in the Results dock (ui/results_panel.hpp), CSV export in the CLI's format;
// the project itself is core/project/studio_project.hpp.
// The public methods are what the menus call; tests and --screenshot drive them directly.
#pragma once

#include <QLineF>
#include <QMainWindow>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch/report.hpp"
#include "core/dic/dic.hpp"
#include "core/dic/job.hpp"
#include "core/io/lazy_stack.hpp"
#include "core/project/studio_project.hpp"
#include "core/register/register_stack.hpp"
#include "core/status.hpp"
#include "core/tracking/tracking.hpp"
#include "ui/image_view.hpp"
#include "ui/lut.hpp"
#include "ui/run_controller.hpp"

class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QAction;
class QListWidget;
class QSpinBox;
class QPlainTextEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSlider;
class QTimer;
class QUndoStack;

namespace xcorr::ui {

class BatchDialog;
class DicPanel;
class ProfilePanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // A multi-page TIFF, a folder or a single image: image `reference_page` (0-based, file order)
  // is the reference, the others the frames in their order. A stack with damaged pages opens with
  // the pages before the damage and a dialog naming the damage and the usable pages; a folder with
  // images of another size is refused.
  Status open_stack(const QString& path, Index reference_page = 0);
  Status open_files(const QStringList& files);  // one frame per file, in this order
  // More frames at the end (stacks of files: a folder, a list of files, a single image); frame k
  // (1-based) as the reference (the old reference becomes a frame; a multi-page TIFF reopens
  // with that page as the reference), or another file as the reference (stacks of files). ROI,
  // options and templates stay.
  Status add_frames(const QStringList& files);
  Status use_as_reference(int frame);
  Status use_reference_file(const QString& file);
  Status open_sample();  // the bundled DIC sample, with its elliptical ROI
  // What the user opens (File > Open, Open recent, a drop, the command line): a project (.json)
  // or a stack. Opened, it heads the recent list; failed, it leaves it.
  Status open_path(const QString& path);
  // The geometry, dock layout and analysis parameters of the last session (ui/window_settings.hpp;
  // saved when the window closes). Without them the window fits its screen.
  void restore_settings();
  void save_settings() const;
  // Projects are DIC job files (docs/dic.md): the stack, ROI, options and the results CSV path;
  // `xcorr dic --job` runs the same file headless.
  // Saving also keeps the last results (core/batch/results_file.hpp); opening a project brings
  // them back without computing.
  Status save_project(const QString& path);
  // The project as a DIC job: the open stack (empty when none), ROI, options and templates.
  dic::DicJob project() const;
  Status open_project(const QString& path);
  void add_roi_shape(const dic::RoiShape& s);  // undoable
  void clear_roi();                            // undoable
  const dic::Roi& roi() const { return project_.roi; }
  DicPanel* dic_panel() const { return panel_; }
  ImageView* view() const { return view_; }
  ProfilePanel* profile_panel() const { return profile_; }
  class LevelsBar* levels_bar() const {
    return levels_;
  }
  QListWidget* frame_list() const { return frame_list_; }
  QString log_text() const;     // the Log dock: every message and error of this session
  void show_profile_panel();    // raises the Profiling dock
  BatchDialog* batch_dialog();  // File > Batch runs (made on first use; new jobs get the project)
  QUndoStack* undo_stack() const { return undo_; }

  bool start_dic();   // false (and a message in the status bar) when it cannot start
  void cancel_run();  // cancels whatever runs (DIC or tracking)
  bool running() const { return runs_->running(); }

  // Template tracking: templates (reference-frame rectangles, undoable), run, results, CSV.
  void add_template(const TemplateRect& r);
  const std::vector<TemplateRect>& templates() const { return project_.templates; }
  bool start_tracking();
  // Stack registration (drift correction) of the open stack: Analysis > Register stack opens
  // the dialog; the run writes the corrected stack and the drift table, shows the drift in the
  // Results dock's Drift tab, and opens the corrected stack to step through.
  void open_register_dialog();
  bool start_registration(const reg::RegisterJob& job);
  // File > Apply drift table: the open stack (every channel and z-plane) moved by a saved
  // drift table into `out` (.tif), run and shown as a registration is.
  bool apply_drift_table(const QString& table, const QString& out);
  // The ROI Manager dock (ui/roi_manager.hpp, ui/main_window_rois.cpp): named shapes kept with
  // the project; every change undoable. Add keeps the last drawn DIC shape; import adds the
  // shapes of ImageJ .roi/.zip files; export writes the selected (none: all) as an ImageJ .zip.
  const std::vector<dic::NamedRoi>& named_rois() const { return project_.rois; }
  class RoiManager* roi_manager() const {
    return roi_manager_;
  }
  void add_last_shape_to_manager();
  Status import_rois(const QString& path);
  Status export_rois(const QString& path);
  void use_named_rois(const std::vector<int>& rows, bool subtract);  // as (or out of) the region
  void named_rois_as_templates(const std::vector<int>& rows);        // their bounding boxes
  void delete_named_rois(const std::vector<int>& rows);
  void rename_named_roi(int row, const QString& name);
  const std::vector<Track>& tracks() const { return project_.tracks; }
  // Deletes tracks `rows` (the Trajectories table's) and their templates; undoable.
  void remove_tracks(const std::vector<int>& rows);
  Status export_tracks_csv(const QString& path);

  // The ZNCC surface of the reference subset (DIC subset size) centred at (x, y) px against the
  // current frame, over +- the search radius; shown in the Results dock's "Surface" tab.
  // Returns the surface (rows: v from -R to R, columns: u from -R to R).
  Result<Stack<float>> probe_surface(double x, double y);
  bool has_results() const { return project_.results.has_value(); }
  const std::optional<dic::DicResult>& results() const { return project_.results; }
  // Exports and saves say what they wrote in the status bar (and the log) when they succeed.
  Status export_csv(const QString& path, bool per_frame = false);
  Status export_frame_csv(const QString& path, int frame);  // one deformed frame (>= 1)
  // The Results dock's shown plot, .png or .pdf, titled with what it shows (quantity, frame,
  // file).
  Status export_plot(const QString& path, int width = 1600, int height = 1200);
  // The view as a figure (File > Export view): the frame shown, whole, `width` px wide, with its
  // LUTs, overlays, scale bar and time stamp; .png or .tif.
  Status export_view(const QString& path, int width);
  // Every frame as such a figure, an animated GIF at `fps` (File > Export movie). A results
  // colour range on Auto is held over all frames for the movie (no rescaling frame to frame).
  Status export_movie(const QString& path, int width, double fps);
  // The data cursor: the nearest grid point's results at (x, y) px of the shown frame (empty
  // when none), shown under the map and marked on the image.
  QString point_readout(double x, double y);
  // The Line tool: results along `line` (image px) of the shown frame in the Profile tab.
  Status profile_along(QLineF line);
  void show_frame(int k);  // 0 = the reference
  int frame_count() const;
  void set_roi_for_tests(const dic::Roi& roi);  // replaces the ROI, not undoable
  // Results of a run not saved yet: Quit, closing, opening another stack or project ask first
  // (Save, Discard, Cancel). true: go on. `ask` replaces the question (tests).
  bool keep_or_discard();
  bool unsaved_results() const { return unsaved_; }
  void set_question_for_tests(std::function<int(const QString&)> ask) { ask_ = std::move(ask); }

 signals:
  void run_finished(bool ok);  // a DIC or tracking run ended (false: failed or cancelled)

 private:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void build_menus();
  // path: the project's stack path (empty for a list of files).
  // files: a list of files (path empty).
  Status adopt_source(std::unique_ptr<io::LazyStack> source, const QString& label,
                      const std::string& path, std::vector<std::string> files);
  void rebuild_recent_menu();
  void build_docks();
  bool stack_ready();          // a stack is open and indexed (else a message; false)
  bool load_frames_for_run();  // stack_ready, and the frames decoded (tracking)
  void set_templates_internal(const std::vector<TemplateRect>& t);
  void refresh_tracks();
  void refresh_results();
  void refresh_scale();
  void refresh_annotations();    // the scale bar and time stamp of the frame shown
  void refresh_profile_cases();  // the Profiling panel's cases of the open data
  // "120.0 x 80.0 px at (10, 20) = 78 x 52 um at (6.5, 13)": a shape's extent, in the unit too.
  QString extent_text(double x, double y, double w, double h)
      const;               // the project's scale to the results panel and the Frames dock
  void refresh_actions();  // exports and runs enabled only when they can be done
  // Why DIC, tracking or registration cannot start now ("" when it can): the runs' actions are
  // disabled with this reason in their tooltip.
  QString dic_blocker() const;
  QString tracking_blocker() const;
  QString register_blocker() const;
  QString stack_blocker() const;  // no stack, still indexing, one image, or a run going
  void show_mode();               // the tool and the Subtract mode in the status bar
  void set_roi_internal(const dic::Roi& roi);
  void build_roi_manager();  // the ROI Manager dock, its File and Edit actions (after build_menus)
  void set_named_rois_internal(const std::vector<dic::NamedRoi>& rois);
  void change_named_rois(const QString& what, const std::vector<dic::NamedRoi>& after);
  void refresh_named_rois();          // the shapes shown on the image (Show all, selection)
  void message(const QString& text);  // status bar and log
  // `done`'s status passed on; when it succeeded, "<what> <path>" in the status bar and log.
  Status confirm(const Status& done, const QString& what, const QString& path);
  // A dialog that stays until dismissed (not blocking: runs and tests go on), and the log.
  void show_error(const QString& title, const QString& text, const char* name = "error");
  // The files of a stack of files, in frame order (empty for a multi-page TIFF).
  std::vector<std::string> stack_files() const;
  // Opens `files` as the stack, keeping the ROI, options and templates of the project.
  Status reopen_files_keeping_project(const std::vector<std::string>& files);
  Status reopen_keeping_project();  // the open stack again (another colour channel)
  io::PlaneSelection plane_for(const std::string& file);  // the analysis' plane, if `file` has it
  void refresh_frame_list();

  // Data: the stack opened lazily (frames decoded on demand, bounded cache); the reference and
  // frames decoded as stacks when tracking needs them; the project
  // (core/project/studio_project.hpp).
  std::shared_ptr<io::LazyStack> source_;  // shared with a running job
  Stack<float> reference_, frames_;
  StudioProject project_;

  ImageView* view_;
  DicPanel* panel_;
  // The runs (ui/run_controller.hpp): each kind brings its completion, finish_dic,
  // finish_tracking or finish_registration.
  RunController* runs_;
  // Starts `work` as `run` and shows it (buttons, progress, `text`); false when one runs.
  bool start_run(RunController::Run run, Job work, const QString& text);
  void run_ending(const QString& name, const Status& status);  // buttons, progress, failure
  void finish_dic();
  void finish_tracking();
  void finish_registration();
  struct DicRun {  // what a DIC job ran with and hands back (written on the job's thread)
    dic::DicOptions options;
    dic::Roi roi;
    dic::DicResult result;
    batch::JobReport report;
  };
  std::shared_ptr<DicRun> dic_out_;
  std::shared_ptr<std::vector<Track>> tracks_out_;
  struct RegisterRun {  // a registration's job and report (written on the job's thread)
    reg::RegisterJob job;
    reg::RegisterReport report;
  };
  std::shared_ptr<RegisterRun> register_out_;
  class TrackingPanel* tracking_panel_ = nullptr;
  QUndoStack* undo_;
  QSlider* slider_;
  QLabel *frame_label_, *pixel_label_, *engine_label_, *eta_label_, *scale_label_ = nullptr;
  QProgressBar* progress_;
  QPushButton *run_button_, *cancel_button_, *play_;
  QTimer* play_timer_;
  QTimer* index_timer_;
  QMenu* recent_menu_ = nullptr;
  QMenu *file_menu_ = nullptr, *edit_menu_ = nullptr;  // for the ROI Manager's entries
  ProfilePanel* profile_ = nullptr;
  class ResultsPanel* results_panel_ = nullptr;
  BatchDialog* batch_ = nullptr;
  class QDockWidget* profile_dock_ = nullptr;
  class LevelsBar* levels_ = nullptr;
  // The channels shown (ui/channels_panel.hpp): a hyperstack's channels at the analysis' z-plane,
  // each opened for display (the analysis channel is source_), with its levels; the active
  // channel's levels live in the view while it is active (shown_channel_).
  class ChannelsPanel* channels_ = nullptr;
  class RoiManager* roi_manager_ = nullptr;
  std::vector<std::shared_ptr<io::LazyStack>> channel_stacks_;
  std::vector<Levels> channel_levels_;
  long shown_channel_ = 0;
  // What the Channels dock shows: each channel's LUT, visibility and levels, and Composite. Kept
  // when the same data opens again (another z-plane or analysis channel) and when registration
  // opens its corrected stack: set before opening, used by open_channels when the channel count
  // is the same.
  struct ChannelDisplay {
    std::vector<Lut> luts;
    std::vector<bool> visible;
    std::vector<Levels> levels;
    bool composite = true;
  };
  ChannelDisplay channel_display();
  std::optional<ChannelDisplay> keep_display_;
  void open_channels();     // after a stack is adopted
  void channels_changed();  // the Channels dock changed: levels kept, frame shown again
  // The composite's other channels of frame `k` (none without Composite).
  std::vector<ImageView::ChannelLayer> other_channels(int k);
  QListWidget* frame_list_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QSpinBox* fps_ = nullptr;
  QLabel* mode_label_ = nullptr;
  QString tool_name_ = tr("Pan");
  bool subtract_ = false;
  // The data cursor's marked grid point, the pointer's last image position over the image or
  // the map (the readout follows it to another frame), the probed point (none: NaN).
  QPointF cursor_point_{qQNaN(), qQNaN()}, cursor_at_{qQNaN(), qQNaN()},
      probe_point_{qQNaN(), qQNaN()};
  QLineF profile_line_;
  QString project_path_;             // the project last saved or opened
  bool unsaved_ = false;             // results of a run since then
  io::PlaneSelection opened_plane_;  // what the open stack was read with (colour, channel, z)
  std::function<int(const QString&)> ask_;
  QAction *export_csv_ = nullptr, *export_frame_ = nullptr, *export_tracks_ = nullptr,
          *export_plot_ = nullptr, *export_view_ = nullptr, *export_movie_ = nullptr;
  // Analysis > Run DIC (F5), Track templates (F6), Register stack (F7), Cancel run (Shift+F5),
  // in the menu and the Analysis toolbar.
  QAction *scale_bar_ = nullptr, *time_stamp_ = nullptr;  // View: the image's annotations
  QAction *run_dic_ = nullptr, *run_tracking_ = nullptr, *run_register_ = nullptr,
          *cancel_action_ = nullptr;
  int current_ = 0;
};

}  // namespace xcorr::ui
