# mosaic_add_plugin(<target> SOURCES <src>... [LIBRARIES <lib>...] [NO_INSTALL])
#
# Builds a Mosaic device plugin: a shared module linking Mosaic::plugin_sdk (never libmosaic), with
# hidden symbols so that only the ABI entry point is exported. In Mosaic's own build the module goes
# to <build>/lib/mosaic/plugins and installs to <libdir>/mosaic/plugins; a vendor project gets the
# same defaults through find_package(Mosaic CONFIG).
function(mosaic_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "mosaic_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Mosaic::plugin_sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    PREFIX "lib")
  if(DEFINED MOSAIC_BUILD_PLUGINDIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${MOSAIC_BUILD_PLUGINDIR})
  endif()
  if(NOT ARG_NO_INSTALL)
    if(NOT DEFINED MOSAIC_INSTALL_PLUGINDIR)
      include(GNUInstallDirs)
      set(MOSAIC_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/mosaic/plugins)
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${MOSAIC_INSTALL_PLUGINDIR})
  endif()
endfunction()
