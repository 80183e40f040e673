// xcorr-studio: the desktop app. Options for scripted use (tests, screenshots):
//   xcorr-studio [STACK] [--sample | --project P.json] [--run] [--screenshot FILE.png]
//                [--size WxH] [--frame K] [--field F] [--colours M] [--cursor X,Y]
//                [--line X0,Y0,X1,Y1] [--tab T] [--screen]
//   xcorr-studio STACK --register OUT.tif [--template X,Y,W,H] [--channel N] [--transform M]
//                [--screenshot FILE.png]
//   xcorr-studio STACK --register-dialog [--transform M] [--screenshot FILE.png]
//   xcorr-studio STACK --track X,Y,W,H [--screenshot FILE.png]   (template tracking)
//   xcorr-studio --batch QUEUE.json [--run] [--screenshot FILE.png]
// --run starts DIC once the stack is open (with --batch: runs the queue); --screenshot saves the
// window (the batch dialog) after the run, or at once without --run, and quits; the view
// options set what it shows (docs/gui.md); --screen saves the whole screen (with dialogs).
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QScreen>
#include <QScrollArea>
#include <QTimer>
#include <cstdio>

#include "core/engine/engine.hpp"
#include "core/version.hpp"
#include "ui/batch_dialog.hpp"
#include "ui/dic_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/profile_panel.hpp"
#include "ui/register_dialog.hpp"
#include "ui/results_panel.hpp"

namespace {

std::vector<double> numbers(const QString& text) {
  std::vector<double> out;
  for (const QString& part : text.split(',')) out.push_back(part.toDouble());
  return out;
}

// The view options (--frame, --field, --colours, --cursor, --line, --option, --tab); false when one
// is not understood (named on stderr).
bool apply_view(xcorr::ui::MainWindow& w, const QCommandLineParser& args) {
  using namespace xcorr::ui;
  auto* results = w.findChild<ResultsPanel*>();
  if (args.isSet("frame")) w.show_frame(args.value("frame").toInt());
  if (args.isSet("field")) {
    const auto f = xcorr::parse_label<ResultField>(args.value("field").toStdString());
    if (!f)
      return std::fprintf(stderr, "xcorr-studio: no field '%s' (%s)\n",
                          qPrintable(args.value("field")),
                          xcorr::label_choices<ResultField>().c_str()),
             false;
    results->set_field(*f);
  }
  if (args.isSet("colours")) {
    const auto m = xcorr::parse_label<ColourMap>(args.value("colours").toStdString());
    if (!m)
      return std::fprintf(stderr, "xcorr-studio: no colour map '%s' (%s)\n",
                          qPrintable(args.value("colours")),
                          xcorr::label_choices<ColourMap>().c_str()),
             false;
    results->set_colour_map(*m);
  }
  if (args.isSet("line")) {
    const std::vector<double> v = numbers(args.value("line"));
    if (v.size() != 4) return std::fprintf(stderr, "xcorr-studio: --line X0,Y0,X1,Y1\n"), false;
    const xcorr::Status s = w.profile_along(QLineF(v[0], v[1], v[2], v[3]));
    if (!s.is_ok()) return std::fprintf(stderr, "xcorr-studio: %s\n", s.message().c_str()), false;
  }
  if (args.isSet("cursor")) {
    const std::vector<double> v = numbers(args.value("cursor"));
    if (v.size() != 2) return std::fprintf(stderr, "xcorr-studio: --cursor X,Y\n"), false;
    (void)w.point_readout(v[0], v[1]);
  }
  if (args.isSet("option")) {  // the DIC form scrolled to the option, its list open
    const QString key = args.value("option");
    auto* field = w.dic_panel()->findChild<QWidget*>(key);
    if (field == nullptr)
      return std::fprintf(stderr, "xcorr-studio: no DIC option '%s'\n", qPrintable(key)), false;
    for (QWidget* p = field->parentWidget(); p != nullptr; p = p->parentWidget()) {
      if (auto* scroll = qobject_cast<QScrollArea*>(p)) {
        scroll->ensureWidgetVisible(field);
        break;
      }
    }
    if (auto* combo = qobject_cast<QComboBox*>(field)) combo->showPopup();
  }
  if (args.isSet("tab")) {
    const QStringList tabs = {"map", "profile", "trajectories", "surface", "drift"};
    const auto k = tabs.indexOf(args.value("tab").toLower());
    if (k < 0)
      return std::fprintf(stderr, "xcorr-studio: no tab '%s'\n", qPrintable(args.value("tab"))),
             false;
    results->setCurrentIndex(static_cast<int>(k));
  }
  return true;
}

}  // namespace

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
  args.addOption({"project", "Open a project (its stack, ROI, options and saved results)", "JSON"});
  args.addOption({"size", "Window size, e.g. 1024x700", "WxH"});
  args.addOption({"frame", "Show frame K (0: the reference)", "K"});
  args.addOption(
      {"field", "Results quantity: u, v, magnitude, sigma_u, sigma_v, exx, eyy, exy, zncc, status",
       "F"});
  args.addOption({"colours", "Colour map: viridis, cividis, diverging, jet", "M"});
  args.addOption({"cursor", "Data cursor at image position X,Y px", "X,Y"});
  args.addOption({"line", "Line profile from X0,Y0 to X1,Y1 px", "X0,Y0,X1,Y1"});
  args.addOption({"tab", "Results tab: map, profile, trajectories, surface, drift", "T"});
  args.addOption({"register",
                  "Register the opened stack (drift correction) into OUT.tif (and OUT_drift.csv), "
                  "then show the corrected stack and the drift",
                  "OUT"});
  args.addOption({"template", "With --register: measure on this region", "X,Y,W,H"});
  args.addOption({"transform",
                  "With --register or --register-dialog: translation, rigid, similarity or affine",
                  "M"});
  args.addOption({"register-dialog",
                  "Open the Register dialog for the opened stack (with --screenshot: save it)"});
  args.addOption({"channel", "The analysis' channel (a hyperstack's channel number)", "N"});
  args.addOption({"track", "Track this template through the opened stack", "X,Y,W,H"});
  args.addOption({"screen", "With --screenshot: save the whole screen (dialogs included)"});
  args.addOption({"option", "Scroll the DIC form to this option and open its list", "KEY"});
  args.addOption(
      {"save", "With --run: save the project (and its results) to FILE after the run", "JSON"});
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
  // The last session's window and parameters; a screenshot starts from a clean profile.
  if (!args.isSet("screenshot")) w.restore_settings();
  if (args.isSet("size")) {
    const QStringList wh = args.value("size").split('x');
    if (wh.size() == 2) {  // a scripted size: at the screen's top-left, as screenshots expect
      w.resize(wh[0].toInt(), wh[1].toInt());
      if (const QScreen* screen = QGuiApplication::primaryScreen())
        w.move(screen->availableGeometry().topLeft());
    }
  }
  w.show();
  if (args.isSet("channel")) {  // the analysis' channel (a hyperstack's), before the stack opens
    xcorr::dic::DicOptions o = w.dic_panel()->options();
    o.channel = args.value("channel").toStdString();
    w.dic_panel()->set_options(o);
  }
  xcorr::Status opened = xcorr::Status::ok();
  if (args.isSet("project"))
    opened = w.open_path(args.value("project"));
  else if (args.isSet("sample"))
    opened = w.open_sample();
  else if (!args.positionalArguments().isEmpty())
    opened = w.open_path(args.positionalArguments()[0]);
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
      auto* dock = w.findChild<QDockWidget*>("profiling_dock");
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
  auto save_and_quit = [&](bool ok) {
    QTimer::singleShot(500, &app, [&, ok] {
      const QPixmap pixels =
          args.isSet("screen") ? QGuiApplication::primaryScreen()->grabWindow(0) : w.grab();
      const bool saved = pixels.save(shot);
      std::printf("%s %s\n", saved ? "saved" : "could not save", shot.toLocal8Bit().constData());
      QApplication::exit(ok && saved ? 0 : 1);
    });
  };
  if (args.isSet("track")) {
    const std::vector<double> v = numbers(args.value("track"));
    if (v.size() != 4) return std::fprintf(stderr, "xcorr-studio: --track X,Y,W,H\n"), 2;
    w.add_template({static_cast<xcorr::Index>(v[0]), static_cast<xcorr::Index>(v[1]),
                    static_cast<xcorr::Index>(v[2]), static_cast<xcorr::Index>(v[3])});
    QObject::connect(&w, &xcorr::ui::MainWindow::run_finished, &app, [&](bool ok) {
      if (shot.isEmpty()) return;
      save_and_quit(apply_view(w, args) && ok);
    });
    QTimer::singleShot(0, &w, [&w] {
      if (!w.start_tracking()) QApplication::exit(2);
    });
    return QApplication::exec();
  }
  xcorr::reg::Transform transform = xcorr::reg::Transform::translation;
  if (args.isSet("transform")) {
    const auto t = xcorr::parse_label<xcorr::reg::Transform>(args.value("transform").toStdString());
    if (!t)
      return std::fprintf(stderr, "xcorr-studio: --transform %s: unknown\n",
                          args.value("transform").toLocal8Bit().constData()),
             2;
    transform = *t;
  }
  if (args.isSet("register-dialog")) {
    xcorr::reg::RegisterOptions o;
    o.channel = w.dic_panel()->options().channel;
    o.transform = transform;
    auto* d = new xcorr::ui::RegisterDialog(args.positionalArguments().value(0).toStdString(),
                                            std::nullopt, o, &w);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->show();
    if (!shot.isEmpty())
      QTimer::singleShot(500, &app, [&, d] {
        const bool saved = d->grab().save(shot);
        std::printf("%s %s\n", saved ? "saved" : "could not save", shot.toLocal8Bit().constData());
        QApplication::exit(saved ? 0 : 1);
      });
    return QApplication::exec();
  }
  if (args.isSet("register")) {
    xcorr::reg::RegisterJob job;
    job.options.transform = transform;
    job.stack = args.positionalArguments().value(0).toStdString();
    job.out = args.value("register").toStdString();
    job.drift = job.out.substr(0, job.out.rfind('.')) + "_drift.csv";
    job.options.channel = w.dic_panel()->options().channel;
    if (args.isSet("template")) {
      const std::vector<double> v = numbers(args.value("template"));
      if (v.size() != 4) return std::fprintf(stderr, "xcorr-studio: --template X,Y,W,H\n"), 2;
      w.add_template({static_cast<xcorr::Index>(v[0]), static_cast<xcorr::Index>(v[1]),
                      static_cast<xcorr::Index>(v[2]), static_cast<xcorr::Index>(v[3])});
      job.options.region = "rect:" + args.value("template").toStdString();
    }
    QObject::connect(&w, &xcorr::ui::MainWindow::run_finished, &app, [&](bool ok) {
      if (shot.isEmpty()) return;
      save_and_quit(apply_view(w, args) && ok);
    });
    QTimer::singleShot(0, &w, [&w, job] {
      if (!w.start_registration(job)) QApplication::exit(2);
    });
    return QApplication::exec();
  }
  if (args.isSet("run")) {
    QObject::connect(&w, &xcorr::ui::MainWindow::run_finished, &app, [&](bool ok) {
      if (args.isSet("save")) {
        const xcorr::Status saved = w.save_project(args.value("save"));
        if (!saved.is_ok()) std::fprintf(stderr, "xcorr-studio: %s\n", saved.message().c_str());
        ok = ok && saved.is_ok();
      }
      if (shot.isEmpty()) return;
      if (!args.isSet("frame")) w.show_frame(w.frame_count() - 1);  // the largest displacements
      save_and_quit(apply_view(w, args) && ok);
    });
    QTimer::singleShot(0, &w, [&w] { w.start_dic(); });
  } else if (!shot.isEmpty()) {
    save_and_quit(apply_view(w, args));
  } else {
    (void)apply_view(w, args);
  }
  return QApplication::exec();
}
