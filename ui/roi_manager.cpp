#include "ui/roi_manager.hpp"

#include <QCheckBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace xcorr::ui {
namespace {

QString kind_text(const dic::RoiShape& s) {
  switch (s.kind) {
    case dic::RoiShapeKind::rectangle:
      return RoiManager::tr("rectangle");
    case dic::RoiShapeKind::ellipse:
      return RoiManager::tr("ellipse");
    case dic::RoiShapeKind::polygon:
      return RoiManager::tr("polygon (%1)").arg(s.vertices.size());
  }
  return {};
}

QString bounds_text(const dic::RoiShape& s) {
  const dic::RoiBounds b = dic::bounds(s);
  return RoiManager::tr("%1 x %2 px at (%3, %4)")
      .arg(b.x1 - b.x0, 0, 'f', 1)
      .arg(b.y1 - b.y0, 0, 'f', 1)
      .arg(b.x0, 0, 'f', 1)
      .arg(b.y0, 0, 'f', 1);
}

}  // namespace

RoiManager::RoiManager(QWidget* parent) : QWidget(parent) {
  setObjectName("roi_manager");
  auto* layout = new QVBoxLayout(this);
  table_ = new QTableWidget(0, 3);
  table_->setObjectName("roi_table");
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Shape"), tr("Bounds")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  table_->setToolTip(tr("Double-click a name to rename it; Shift or Ctrl to select several"));
  layout->addWidget(table_, 1);
  auto* grid = new QGridLayout;
  layout->addLayout(grid);
  const auto button = [](const QString& text, const QString& name, const QString& tip) {
    auto* b = new QPushButton(text);
    b->setObjectName(name);
    b->setToolTip(tip);
    return b;
  };
  auto* add = button(tr("Add"), "roi_add",
                     tr("Keep the last shape drawn with the Rectangle, Ellipse or Polygon tool "
                        "(Ctrl+T)"));
  auto* open = button(tr("Open..."), "roi_open",
                      tr("Add the shapes of ImageJ ROI files (.roi, or the ROI Manager's .zip)"));
  save_ = button(tr("Save..."), "roi_save",
                 tr("Write the selected shapes (none selected: all) as a .zip ImageJ and Fiji "
                    "open"));
  delete_ = button(tr("Delete"), "roi_delete", tr("Remove the selected shapes (Edit > Undo)"));
  use_ = button(tr("Use as region"), "roi_use",
                tr("The selected shapes become the DIC region of interest"));
  subtract_ = button(tr("Subtract"), "roi_subtract",
                     tr("Cut the selected shapes out of the DIC region of interest"));
  templates_ = button(tr("Templates"), "roi_templates",
                      tr("Add the selected shapes' bounding boxes as tracking templates"));
  // Two columns: the dock shares the left side with the Analysis form (1024 px wide screens).
  grid->addWidget(add, 0, 0);
  grid->addWidget(delete_, 0, 1);
  grid->addWidget(open, 1, 0);
  grid->addWidget(save_, 1, 1);
  grid->addWidget(use_, 2, 0);
  grid->addWidget(subtract_, 2, 1);
  grid->addWidget(templates_, 3, 0);
  show_all_ = new QCheckBox(tr("Show all"));
  show_all_->setObjectName("roi_show_all");
  show_all_->setChecked(true);
  show_all_->setToolTip(tr("Draw every shape with its name on the image"));
  grid->addWidget(show_all_, 3, 1);
  connect(add, &QPushButton::clicked, this, &RoiManager::add_requested);
  connect(open, &QPushButton::clicked, this, &RoiManager::open_requested);
  connect(save_, &QPushButton::clicked, this, &RoiManager::save_requested);
  connect(delete_, &QPushButton::clicked, this, [this] { emit delete_requested(selected()); });
  connect(use_, &QPushButton::clicked, this, [this] { emit use_requested(selected(), false); });
  connect(subtract_, &QPushButton::clicked, this, [this] { emit use_requested(selected(), true); });
  connect(templates_, &QPushButton::clicked, this,
          [this] { emit templates_requested(selected()); });
  connect(show_all_, &QCheckBox::toggled, this, &RoiManager::display_changed);
  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
    refresh_buttons();
    if (!filling_) emit display_changed();
  });
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!filling_ && item->column() == 0) emit rename_requested(item->row(), item->text());
  });
  refresh_buttons();
}

void RoiManager::set_rois(const std::vector<dic::NamedRoi>& rois) {
  const std::vector<int> keep = selected();
  filling_ = true;
  table_->setRowCount(static_cast<int>(rois.size()));
  for (int r = 0; r < static_cast<int>(rois.size()); ++r) {
    const dic::NamedRoi& roi = rois[static_cast<std::size_t>(r)];
    auto* name = new QTableWidgetItem(QString::fromStdString(roi.name));
    auto* kind = new QTableWidgetItem(kind_text(roi.shape));
    auto* bounds = new QTableWidgetItem(bounds_text(roi.shape));
    kind->setFlags(kind->flags() & ~Qt::ItemIsEditable);
    bounds->setFlags(bounds->flags() & ~Qt::ItemIsEditable);
    table_->setItem(r, 0, name);
    table_->setItem(r, 1, kind);
    table_->setItem(r, 2, bounds);
  }
  table_->resizeColumnToContents(0);
  table_->resizeColumnToContents(1);
  std::vector<int> still;
  for (int r : keep)
    if (r < table_->rowCount()) still.push_back(r);
  select(still);
  filling_ = false;
  refresh_buttons();
}

std::vector<int> RoiManager::selected() const {
  std::vector<int> rows;
  for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows.push_back(i.row());
  std::sort(rows.begin(), rows.end());
  return rows;
}

void RoiManager::select(const std::vector<int>& rows) {
  const bool was = filling_;
  filling_ = true;
  table_->clearSelection();
  for (int r : rows) {
    if (r < 0 || r >= table_->rowCount()) continue;
    table_->selectionModel()->select(table_->model()->index(r, 0),
                                     QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
  filling_ = was;
  refresh_buttons();
  if (!filling_) emit display_changed();
}

bool RoiManager::show_all() const {
  return show_all_->isChecked();
}

void RoiManager::refresh_buttons() {
  const bool any = !selected().empty();
  for (QPushButton* b : {delete_, use_, subtract_, templates_}) b->setEnabled(any);
  save_->setEnabled(table_->rowCount() > 0);
}

}  // namespace xcorr::ui
