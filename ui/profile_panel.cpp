#include "ui/profile_panel.hpp"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/engine/engine.hpp"
#include "core/io/atomic_write.hpp"
#include "core/io/read_file.hpp"

namespace xcorr::ui {
namespace {

QSpinBox* spin(int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

// Numbers sort as numbers in the table.
QTableWidgetItem* number(double v, int digits) {
  auto* item = new QTableWidgetItem;
  item->setData(Qt::DisplayRole, std::round(v * std::pow(10, digits)) / std::pow(10, digits));
  return item;
}

bool is_fft(const std::string& variant) {
  return variant.find("fft") != std::string::npos;
}

double conflicts(const profiling::SmemTraffic& t) {
  return t.load_conflicts() + t.store_conflicts();
}
double wavefronts(const profiling::SmemTraffic& t) {
  return t.load_wavefronts + t.store_wavefronts;
}

// "name: pitch P, gcd G, W wavefronts; pad K -> W'" for each shared array of a kernel.
QString describe_arrays(const std::vector<profiling::SmemArray>& arrays) {
  QStringList parts;
  for (const profiling::SmemArray& a : arrays) {
    parts << QString("%1 (%2): pitch %3, gcd %4, %5 wavefronts; pad %6 -> %7")
                 .arg(QString::fromStdString(a.name), QString::fromStdString(a.access))
                 .arg(a.pitch_elements)
                 .arg(a.gcd_degree)
                 .arg(a.wavefronts)
                 .arg(a.pad_elements)
                 .arg(a.padded_wavefronts);
  }
  return parts.join("; ");
}

// Grouped bars (one group per label, one set per series) on `plot`.
void grouped_bars(QCustomPlot* plot, const QVector<QString>& labels,
                  const std::vector<std::pair<QString, QVector<double>>>& series) {
  plot->clearPlottables();
  QVector<double> ticks;
  for (int k = 0; k < labels.size(); ++k) ticks << k + 1.0;
  auto* group = new QCPBarsGroup(plot);
  int colour = 0;
  for (const auto& [name, values] : series) {
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(name);
    bars->setWidth(0.8 / static_cast<double>(series.size()));
    bars->setBrush(colour++ == 0 ? QColor(70, 120, 200) : QColor(230, 140, 40));
    bars->setBarsGroup(group);
    bars->setData(ticks, values);
  }
  QSharedPointer<QCPAxisTickerText> text(new QCPAxisTickerText);
  text->addTicks(ticks, labels);
  plot->xAxis->setTicker(text);
  plot->xAxis->setTickLabelRotation(60);
  plot->xAxis->setRange(0, labels.size() + 1);
  plot->legend->setVisible(series.size() > 1);
  plot->replot();
}

}  // namespace

ProfilePanel::ProfilePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  // Each choice says what it means; its data is the name the CLI and the table use.
  const auto choices = [](std::initializer_list<std::pair<QString, const char*>> items) {
    auto* c = new QComboBox;
    for (const auto& [text, key] : items) c->addItem(text, QString(key));
    return c;
  };
  form_ = choices({{tr("one template, many windows (one_to_many)"), "one_to_many"},
                   {tr("n templates, m windows each (n_to_mn)"), "n_to_mn"},
                   {tr("n templates against m windows (n_to_m)"), "n_to_m"},
                   {tr("one template, one window (one_to_one)"), "one_to_one"}});
  mode_ = choices({{tr("every shift, padded (full)"), "full"},
                   {tr("template inside the window (valid)"), "valid"}});
  norm_ =
      choices({{tr("plain products (none)"), "none"}, {tr("normalised, -1..1 (zncc)"), "zncc"}});
  output_ = choices(
      {{tr("the whole surface (surface)"), "surface"}, {tr("the best shift only (peak)"), "peak"}});
  output_->setToolTip(
      tr("peak: per pair the maximum and its refinement (valid mode); "
         "gpu_zncc_tiled fuses the search, the others reduce their surfaces"));
  size_ = spin(2, 4096, 64);
  template_ = spin(0, 4096, 0);
  template_->setToolTip(tr("valid mode: the template's side in px (0: half the size)"));
  form_->setObjectName("form");
  mode_->setObjectName("mode");
  norm_->setObjectName("norm");
  output_->setObjectName("output");
  size_->setObjectName("size");
  template_->setObjectName("template");
  n_ = spin(1, 100000, 1);
  m_ = spin(1, 100000, 16);
  n_->setObjectName("n");
  m_->setObjectName("m");
  size_->setToolTip(tr("The side of each window (px)"));
  n_->setToolTip(tr("Templates (n_to_mn, n_to_m)"));
  m_->setToolTip(tr("Windows per template"));
  repeats_ = spin(1, 1000, 10);
  sweep_ = new QCheckBox(tr("sweep sizes 8 ... 128"));
  counters_ = new QCheckBox(tr("hardware counters"));
  counters_->setChecked(true);
  counters_->setToolTip(
      tr("Read achieved occupancy and shared-memory wavefronts and bank "
         "conflicts through CUPTI (kernel replay: slower)"));
  case_ = new QComboBox;
  case_->setObjectName("case");
  case_->addItem(tr("as set below"));
  case_->setToolTip(
      tr("A problem of the open data: its frames' registration or its DIC "
         "integer guess (File > Open a stack to offer them)"));
  form->addRow(tr("Case"), case_);
  form->addRow(tr("Problem"), form_);
  form->addRow(tr("Shifts"), mode_);
  form->addRow(tr("Normalisation"), norm_);
  form->addRow(tr("Output"), output_);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(new QLabel(tr("window side (px)")));
  row2->addWidget(size_);
  row2->addWidget(new QLabel(tr("template (px)")));
  row2->addWidget(template_);
  row2->addWidget(new QLabel(tr("n")));
  row2->addWidget(n_);
  row2->addWidget(new QLabel(tr("m")));
  row2->addWidget(m_);
  form->addRow(tr("Sizes"), row2);
  connect(case_, &QComboBox::currentIndexChanged, this, [this](int k) {
    if (k <= 0 || static_cast<std::size_t>(k) > cases_.size()) return;
    const DataCase& c = cases_[static_cast<std::size_t>(k - 1)];
    const auto pick = [](QComboBox* box, const char* key) {
      box->setCurrentIndex(box->findData(QString(key)));
    };
    pick(form_, c.form);
    pick(mode_, c.mode);
    pick(norm_, c.norm);
    pick(output_, c.output);
    size_->setValue(c.size);
    template_->setValue(c.template_size);
    n_->setValue(c.n);
    m_->setValue(c.m);
    sweep_->setChecked(false);
  });
  auto* row3 = new QHBoxLayout;
  row3->addWidget(new QLabel(tr("repeats")));
  row3->addWidget(repeats_);
  row3->addWidget(sweep_);
  row3->addWidget(counters_);
  form->addRow(row3);
  layout->addLayout(form);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run"));
  auto* load = new QPushButton(tr("Load..."));
  auto* csv = new QPushButton(tr("Export CSV..."));
  auto* png = new QPushButton(tr("Export plot..."));
  for (auto* b : {run_, load, csv, png}) buttons->addWidget(b);
  layout->addLayout(buttons);
  note_ = new QLabel;
  note_->setWordWrap(true);
  layout->addWidget(note_);
  table_ = new QTableWidget(0, 21);
  table_->setHorizontalHeaderLabels({"variant",
                                     "device",
                                     "size",
                                     "median ms",
                                     "p90 ms",
                                     "e2e ms",
                                     "GFLOP/s",
                                     "GB/s",
                                     "kernel",
                                     "regs",
                                     "smem B",
                                     "threads",
                                     "occupancy %",
                                     "CUDA %",
                                     "limiter",
                                     "achieved %",
                                     "wavefronts model",
                                     "wavefronts measured",
                                     "conflicts model",
                                     "conflicts measured",
                                     "shared arrays: pitch, gcd degree, padding"});
  table_->setSortingEnabled(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setMinimumHeight(180);
  layout->addWidget(table_, 2);
  plots_ = new QTabWidget;
  time_plot_ = new QCustomPlot;
  time_plot_->xAxis->setLabel(tr("size (px)"));
  time_plot_->yAxis->setLabel(tr("median time (ms)"));
  for (QCPAxis* a : {time_plot_->xAxis, time_plot_->yAxis}) {
    a->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    if (a == time_plot_->xAxis) ticker->setLogBase(2);  // sizes are powers of two
    a->setTicker(ticker);
  }
  time_plot_->legend->setVisible(true);
  time_plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  time_plot_->legend->setFont(QFont(font().family(), 7));
  occupancy_plot_ = new QCustomPlot;
  occupancy_plot_->yAxis->setLabel(tr("occupancy (%)"));
  occupancy_plot_->yAxis->setRange(0, 100);
  conflict_plot_ = new QCustomPlot;
  conflict_plot_->yAxis->setLabel(tr("conflicts (% of wavefronts)"));
  plots_->addTab(time_plot_, tr("Time vs size"));
  plots_->addTab(occupancy_plot_, tr("Occupancy"));
  plots_->addTab(conflict_plot_, tr("Bank conflicts"));
  plots_->setMinimumHeight(260);
  layout->addWidget(plots_, 2);

  runner_ = new JobRunner(this);
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(load, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load profile"), {}, tr("Profiles (*.json)"));
    if (path.isEmpty()) return;
    const Status s = this->load(path);
    if (!s.is_ok())
      QMessageBox::warning(this, tr("Load profile"), QString::fromStdString(s.message()));
  });
  connect(csv, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export profile"), "profile.csv", tr("CSV (*.csv)"));
    if (!path.isEmpty()) (void)export_csv(path);
  });
  connect(png, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export plot"), "profile.png", tr("PNG (*.png)"));
    if (!path.isEmpty()) (void)export_plot(path);
  });
  connect(runner_, &JobRunner::finished, this, [this](const Status& s) {
    run_->setEnabled(true);
    if (s.is_ok()) {
      std::vector<engine::VariantProfile> all = rows_;
      all.insert(all.end(), pending_->begin(), pending_->end());
      set_rows(std::move(all));
    } else {
      note_->setText(QString::fromStdString(s.message()));
    }
    emit finished(s.is_ok());
  });
  const auto devices = engine::devices();
  if (!devices.is_ok()) {
    note_->setObjectName("no_gpu");
    note_->setText(tr("This machine has no GPU to profile (%1). Run times the CPU variants, so "
                      "the GPU columns stay empty; Load shows a profile measured on a GPU "
                      "(`xcorr profile --out`).")
                       .arg(QString::fromStdString(devices.status().message())));
  } else {
    note_->setText(
        tr("Occupancy: our calculator (checked against CUDA's) and, with hardware counters, the "
           "achieved value. Shared-memory wavefronts and bank conflicts: modelled from each "
           "kernel's own index functions beside CUPTI's counters."));
  }
}

void ProfilePanel::set_open_data(long rows, long cols, long frames, int subset, int search_radius) {
  const QSignalBlocker block(case_);
  case_->clear();
  case_->addItem(tr("as set below"));
  cases_.clear();
  if (rows > 0 && cols > 0 && frames > 1) {
    // Registration: the reference against the other frames, every shift (phase correlation's
    // problem), on the stack's smaller side (square windows).
    const int side = static_cast<int>(std::min({rows, cols, 4096L}));
    cases_.push_back({"one_to_many", "full", "none", "surface", side, 0, 1,
                      static_cast<int>(std::min(frames - 1, 100000L))});
    case_->addItem(tr("registration of the open stack: %1 frames against the reference, %2 px")
                       .arg(frames - 1)
                       .arg(side));
    // DIC's integer guess: each subset in its search window, ZNCC, the best shift.
    const int window = std::min(subset + 2 * search_radius, 4096);
    cases_.push_back({"one_to_one", "valid", "zncc", "peak", window, subset, 1, 1});
    case_->addItem(
        tr("DIC integer guess: a %1 px subset in its %2 px search window").arg(subset).arg(window));
  }
}

bool ProfilePanel::run() {
  if (runner_->busy()) return false;
  engine::ProfileRequest base;
  base.form = *parse_form(form_->currentData().toString().toStdString());
  base.mode = *parse_mode(mode_->currentData().toString().toStdString());
  base.norm = *parse_normalization(norm_->currentData().toString().toStdString());
  base.output = *parse_output(output_->currentData().toString().toStdString());
  base.template_size = template_->value();
  base.n = n_->value();
  base.m = m_->value();
  base.repeats = repeats_->value();
  base.counters = counters_->isChecked();
  std::vector<Index> sizes = {size_->value()};
  if (sweep_->isChecked()) sizes = {8, 16, 32, 64, 128};
  auto out = std::make_shared<std::vector<engine::VariantProfile>>();
  pending_ = out;
  run_->setEnabled(false);
  return runner_->start([out, base, sizes](const JobProgress& progress) -> Status {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      engine::ProfileRequest r = base;
      r.rows = r.cols = sizes[k];
      auto rows = engine::profile_problem(r);
      if (!rows.is_ok()) return rows.status();
      out->insert(out->end(), rows.value().begin(), rows.value().end());
      if (!progress(static_cast<long long>(k + 1), static_cast<long long>(sizes.size())))
        return Status{ErrorCode::cancelled, "profile cancelled"};
    }
    return Status::ok();
  });
}

Status ProfilePanel::load(const QString& json_path) {
  auto text = io::read_file(json_path.toStdString());
  if (!text.is_ok()) return text.status();
  auto rows = engine::profile_from_json(text.value());
  if (!rows.is_ok()) return rows.status();
  std::vector<engine::VariantProfile> all = rows_;
  all.insert(all.end(), rows.value().begin(), rows.value().end());
  set_rows(std::move(all));
  return Status::ok();
}

void ProfilePanel::set_rows(std::vector<engine::VariantProfile> rows) {
  rows_ = std::move(rows);
  refresh();
}

void ProfilePanel::fill_table() {
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  for (const engine::VariantProfile& v : rows_) {
    const std::size_t lines = std::max<std::size_t>(1, v.kernels.size());
    for (std::size_t k = 0; k < lines; ++k) {
      const int r = table_->rowCount();
      table_->insertRow(r);
      table_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(v.variant)));
      table_->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(v.device)));
      table_->setItem(r, 2, number(static_cast<double>(v.rows), 0));
      table_->setItem(r, 3, number(v.median_ms, 4));
      table_->setItem(r, 4, number(v.p90_ms, 4));
      table_->setItem(r, 5, number(v.e2e_ms, 4));
      table_->setItem(r, 6, number(v.gflops, 1));
      table_->setItem(r, 7, number(v.bandwidth_gb_s, 1));
      if (k < v.kernels.size()) {
        const engine::KernelRow& kr = v.kernels[k];
        table_->setItem(r, 8, new QTableWidgetItem(QString::fromStdString(kr.kernel)));
        table_->setItem(r, 9, number(kr.registers, 0));
        table_->setItem(r, 10, number(kr.static_shared_bytes + kr.dynamic_shared_bytes, 0));
        table_->setItem(r, 11, number(kr.threads_per_block, 0));
        table_->setItem(r, 12, number(100 * kr.occupancy, 1));
        table_->setItem(r, 13, number(100 * kr.cuda_occupancy, 1));
        table_->setItem(r, 14, new QTableWidgetItem(QString::fromStdString(kr.limiter)));
        if (kr.counters) table_->setItem(r, 15, number(100 * kr.counters->achieved_occupancy, 1));
        const profiling::SmemTraffic none;
        const profiling::SmemTraffic& model = kr.smem_model ? *kr.smem_model : none;
        table_->setItem(r, 16, number(wavefronts(model), 0));
        table_->setItem(r, 18, number(conflicts(model), 0));
        if (kr.counters) {
          table_->setItem(r, 17, number(wavefronts(kr.counters->smem), 0));
          table_->setItem(r, 19, number(conflicts(kr.counters->smem), 0));
        }
        table_->setItem(r, 20, new QTableWidgetItem(describe_arrays(kr.smem_arrays)));
      } else {
        table_->setItem(r, 8,
                        new QTableWidgetItem(v.device == "gpu" ? tr("(cuFFT)") : tr("(CPU)")));
      }
      if (!v.counters_note.empty())
        table_->item(r, 0)->setToolTip(QString::fromStdString(v.counters_note));
    }
  }
  table_->setSortingEnabled(true);
}

void ProfilePanel::plot_time() {
  // Time vs size: one graph per variant (rows of one problem kind), log-log.
  time_plot_->clearGraphs();
  time_plot_->clearItems();
  std::map<std::string, std::map<Index, double>> series;
  for (const auto& v : rows_) series[v.variant][v.rows] = v.median_ms;
  int colour = 0;
  for (const auto& [name, points] : series) {
    QCPGraph* g = time_plot_->addGraph();
    g->setName(QString::fromStdString(name));
    const QColor c = QColor::fromHsv((colour++ * 47) % 360, 200, 200);
    g->setPen(QPen(c, is_fft(name) ? 2.5 : 1.2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    for (const auto& [size, ms] : points) g->addData(static_cast<double>(size), ms);
  }
  // Crossover: the smallest size from which the best FFT variant beats every direct one.
  std::map<Index, std::pair<double, double>> best;  // size -> (direct, fft)
  for (const auto& v : rows_) {
    auto& b = best.try_emplace(v.rows, std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::infinity())
                  .first->second;
    double& slot = is_fft(v.variant) ? b.second : b.first;
    slot = std::min(slot, v.median_ms);
  }
  for (const auto& [size, b] : best) {
    if (best.size() > 1 && b.second < b.first) {
      auto* line = new QCPItemStraightLine(time_plot_);
      line->point1->setCoords(static_cast<double>(size), 1e-6);
      line->point2->setCoords(static_cast<double>(size), 1e6);
      line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
      auto* label = new QCPItemText(time_plot_);
      label->position->setCoords(static_cast<double>(size), 1.0);
      label->setText(tr(" FFT wins from %1 px").arg(size));
      label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
      label->position->setType(QCPItemPosition::ptPlotCoords);
      label->position->setAxes(time_plot_->xAxis, time_plot_->yAxis);
      break;
    }
  }
  time_plot_->rescaleAxes();
  time_plot_->replot();
}

void ProfilePanel::plot_occupancy() {
  // The first kernel of each GPU variant (last size profiled): theoretical, and achieved when
  // counters were read.
  std::map<std::string, std::pair<double, double>> occ;
  bool measured = false;
  for (const auto& v : rows_) {
    if (v.kernels.empty()) continue;
    const engine::KernelRow& k = v.kernels.front();
    occ[v.variant] = {100 * k.occupancy, k.counters ? 100 * k.counters->achieved_occupancy : 0};
    measured = measured || k.counters.has_value();
  }
  QVector<QString> labels;
  QVector<double> theoretical, achieved;
  for (const auto& [name, o] : occ) {
    labels << QString::fromStdString(name).remove("gpu_");
    theoretical << o.first;
    achieved << o.second;
  }
  std::vector<std::pair<QString, QVector<double>>> series = {{tr("theoretical"), theoretical}};
  if (measured) series.push_back({tr("achieved (CUPTI)"), achieved});
  grouped_bars(occupancy_plot_, labels, series);
}

// Bank conflicts as a share of each variant's shared-memory wavefronts (loads and stores, first
// kernel, last size profiled): the model beside CUPTI's counters.
void ProfilePanel::plot_conflicts() {
  std::map<std::string, std::pair<double, double>> share;
  bool measured = false;
  for (const auto& v : rows_) {
    if (v.kernels.empty() || !v.kernels.front().smem_model) continue;
    const engine::KernelRow& k = v.kernels.front();
    const double model = wavefronts(*k.smem_model) > 0
                             ? 100 * conflicts(*k.smem_model) / wavefronts(*k.smem_model)
                             : 0;
    double got = 0;
    if (k.counters && wavefronts(k.counters->smem) > 0)
      got = 100 * conflicts(k.counters->smem) / wavefronts(k.counters->smem);
    measured = measured || k.counters.has_value();
    share[v.variant] = {model, got};
  }
  QVector<QString> labels;
  QVector<double> model, got;
  for (const auto& [name, s] : share) {
    labels << QString::fromStdString(name).remove("gpu_");
    model << s.first;
    got << s.second;
  }
  std::vector<std::pair<QString, QVector<double>>> series = {{tr("modelled"), model}};
  if (measured) series.push_back({tr("measured (CUPTI)"), got});
  grouped_bars(conflict_plot_, labels, series);
  conflict_plot_->yAxis->rescale();
  conflict_plot_->yAxis->setRangeLower(0);
  conflict_plot_->replot();
}

void ProfilePanel::refresh() {
  fill_table();
  plot_time();
  plot_occupancy();
  plot_conflicts();
}

bool ProfilePanel::show_plot(const QString& title) {
  for (int k = 0; k < plots_->count(); ++k) {
    if (plots_->tabText(k).startsWith(title, Qt::CaseInsensitive)) {
      plots_->setCurrentIndex(k);
      return true;
    }
  }
  return false;
}

Status ProfilePanel::export_csv(const QString& path) const {
  const std::string text = engine::profile_to_csv(rows_);
  return io::write_text_atomically(path.toStdString(), text);
}

Status ProfilePanel::export_plot(const QString& path) const {
  auto* plot = qobject_cast<QCustomPlot*>(plots_->currentWidget());
  return plot != nullptr && plot->savePng(path)
             ? Status::ok()
             : Status{ErrorCode::io_error, "cannot write '" + path.toStdString() + "'"};
}

}  // namespace xcorr::ui
