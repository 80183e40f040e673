// xcorr-studio: the desktop app. Options for scripted use (tests, screenshots):
//   xcorr-studio [STACK] [--sample] [--run] [--screenshot FILE.png]
//   xcorr-studio --batch QUEUE.json [--run] [--screenshot FILE.png]
// --run starts DIC once the stack is open (with --batch: runs the queue); --screenshot saves the
// window (the batch dialog) after the run and quits.
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QTimer>
#include <cstdio>

#include "core/engine/engine.hpp"
#include "core/version.hpp"
#include "ui/batch_dialog.hpp"
#include "ui/main_window.hpp"
#include "ui/profile_panel.hpp"

int main(int argc, char** argv) {
  xcorr::engine::install_gpu();  // before any panel uses the engine
  QApplication app(argc, argv);
  QApplication::setApplicationName("xcorr-studio");
  QApplication::setApplicationVersion(xcorr::kVersion);
  QCommandLineParser args;
  args.setApplicationDescription("XCorr Studio: image cross-correlation and DIC");
  args.addHelpOption();
  args.addVersionOption();
  args.addPositionalArgument("stack", "Image stack to open (multi-page TIFF or folder)");
  args.addOption({"sample", "Open the bundled DIC sample"});
  args.addOption({"run", "Run DIC after opening"});
  args.addOption({"screenshot", "Save the window to FILE after the run, then quit", "FILE"});
  args.addOption({"profile",
                  "Load a profile JSON (xcorr profile --out) into the Profiling panel "
                  "(repeatable); with --screenshot, saves the window showing it",
                  "JSON"});
  args.addOption({"profile-plot",
                  "With --profile: the plot tab to show (Time, Occupancy or Bank conflicts)",
                  "TAB"});
  args.addOption(
      {"batch",
       "Open the batch dialog with this queue (a batch file, docs/batch.md); with --run, "
       "run it",
       "JSON"});
  args.process(app);

  xcorr::ui::MainWindow w;
  w.show();
  xcorr::Status opened = xcorr::Status::ok();
  if (args.isSet("sample"))
    opened = w.open_sample();
  else if (!args.positionalArguments().isEmpty())
    opened = w.open_stack(args.positionalArguments()[0]);
  if (!opened.is_ok()) {
    std::fprintf(stderr, "xcorr-studio: %s\n", opened.message().c_str());
    if (args.isSet("screenshot")) return 2;
  }
  const QString shot = args.value("screenshot");
  if (args.isSet("profile")) {
    for (const QString& p : args.values("profile")) {
      const xcorr::Status s = w.profile_panel()->load(p);
      if (!s.is_ok()) std::fprintf(stderr, "xcorr-studio: %s\n", s.message().c_str());
    }
    w.show_profile_panel();
    if (args.isSet("profile-plot") && !w.profile_panel()->show_plot(args.value("profile-plot")))
      std::fprintf(stderr, "xcorr-studio: no plot tab '%s'\n",
                   args.value("profile-plot").toLocal8Bit().constData());
    if (!shot.isEmpty()) {
      // The panel alone, floated at a readable size: its table and plots are the subject.
      auto* dock = qobject_cast<QDockWidget*>(w.profile_panel()->parentWidget());
      if (dock != nullptr) {
        dock->setFloating(true);
        dock->resize(1500, 1050);
      }
      QTimer::singleShot(500, &app, [&, dock] {
        const bool saved = (dock != nullptr ? dock->grab() : w.grab()).save(shot);
        std::printf("%s %s\n", saved ? "saved" : "could not save", shot.toLocal8Bit().constData());
        QApplication::exit(saved ? 0 : 1);
      });
    }
    return QApplication::exec();
  }
  if (args.isSet("batch")) {
    xcorr::ui::BatchDialog* d = w.batch_dialog();
    const xcorr::Status loaded = d->load_queue(args.value("batch"));
    if (!loaded.is_ok()) {
      std::fprintf(stderr, "xcorr-studio: %s\n", loaded.message().c_str());
      return 2;
    }
    d->show();
    auto save_and_quit = [&, d](bool ok) {
      if (shot.isEmpty()) return;
      QTimer::singleShot(300, &app, [&, d, ok] {
        const bool saved = d->grab().save(shot);
        std::printf("%s %s\n", saved ? "saved" : "could not save", shot.toLocal8Bit().constData());
        QApplication::exit(ok && saved ? 0 : 1);
      });
    };
    if (args.isSet("run")) {
      QObject::connect(d, &xcorr::ui::BatchDialog::batch_finished, &app,
                       [save_and_quit](const xcorr::Status& s) { save_and_quit(s.is_ok()); });
      QTimer::singleShot(0, d, [d, save_and_quit] {
        if (!d->start()) save_and_quit(false);
      });
    } else {
      save_and_quit(true);
    }
    return QApplication::exec();
  }
  if (args.isSet("run") || !shot.isEmpty()) {
    QObject::connect(&w, &xcorr::ui::MainWindow::run_finished, &app, [&](bool ok) {
      if (shot.isEmpty()) return;
      w.show_frame(w.frame_count() - 1);  // the last frame: the largest displacements
      QTimer::singleShot(300, &app, [&, ok] {
        const bool saved = w.grab().save(shot);
        std::printf("%s %s\n", saved ? "saved" : "could not save", shot.toLocal8Bit().constData());
        QApplication::exit(ok && saved ? 0 : 1);
      });
    });
    QTimer::singleShot(0, &w, [&w] { w.start_dic(); });
  }
  return QApplication::exec();
}
